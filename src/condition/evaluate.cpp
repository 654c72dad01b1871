// evaluate.cpp — Condition::Matches: the compiled tree against one subject.
#include <sys/stat.h>

#include <algorithm>

#include "condition/condition_tree.h"

namespace fathom::condition {
namespace {

using Node = Condition::Node;

// The base name of an absolute path ("/" for the root).
std::string_view BaseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos || path.size() == 1 ? path : path.substr(slash + 1);
}

// Whether `path` or a directory above it matches the glob.
bool InTree(const Glob& glob, std::string_view path) {
  for (;;) {
    if (glob.Matches(path)) return true;
    const size_t slash = path.find_last_of('/');
    if (slash == std::string_view::npos || path.size() <= 1) return false;
    path = path.substr(0, slash == 0 ? 1 : slash);
  }
}

// An equality of a glob criterion: == holds when it matches, != when it does not.
bool Equality(const Node& n, bool matched) { return n.op == Op::kEq ? matched : !matched; }

bool CompareAge(const Node& n, std::optional<int64_t> time_ns, int64_t now_ns) {
  return time_ns && Compare(now_ns - *time_ns, n.op, n.number);
}

bool Account(const Node& n, uint32_t id, const std::function<std::optional<std::string>(uint32_t)>& name) {
  if (n.glob) {
    const std::optional<std::string> known = name ? name(id) : std::nullopt;
    return Equality(n, known && n.glob->Matches(*known));
  }
  return Equality(n, !n.no_account && id == n.number);
}

bool CompareOne(const Node& n, const Subject& s, int64_t now_ns) {
  const catalog::Attrs& a = *s.attrs;
  switch (n.criterion->criterion) {
    case Criterion::kTree: return Equality(n, InTree(*n.glob, s.path));
    case Criterion::kPath: return Equality(n, n.glob->Matches(s.path));
    case Criterion::kName:
    case Criterion::kIname: return Equality(n, n.glob->Matches(BaseName(s.path)));
    case Criterion::kType: return Equality(n, (a.mode & S_IFMT) == static_cast<uint32_t>(n.number));
    case Criterion::kMode: {
      const int64_t bits = a.mode & 07777;
      const bool held = n.mode_form == '=' ? bits == n.number
                        : n.mode_form == '-' ? (bits & n.number) == n.number
                                             : n.number == 0 || (bits & n.number) != 0;
      return Equality(n, held);
    }
    case Criterion::kOwner: return Account(n, a.uid, s.user_name);
    case Criterion::kGroup: return Account(n, a.gid, s.group_name);
    case Criterion::kProjid: return a.projid && Compare(*a.projid, n.op, n.number);
    case Criterion::kSize: return Compare(a.size, n.op, n.number);
    case Criterion::kBlocks: return Compare(a.blocks * 512, n.op, n.number);
    case Criterion::kDepth: return s.depth && Compare(*s.depth, n.op, n.number);
    case Criterion::kDircount:
      return S_ISDIR(a.mode) && s.dircount && Compare(static_cast<int64_t>(*s.dircount), n.op, n.number);
    case Criterion::kNlink: return Compare(static_cast<int64_t>(a.nlink), n.op, n.number);
    case Criterion::kLastAccess: return CompareAge(n, a.atime_ns, now_ns);
    case Criterion::kLastMod: return CompareAge(n, a.mtime_ns, now_ns);
    case Criterion::kLastMdchange: return CompareAge(n, a.ctime_ns, now_ns);
    case Criterion::kCreation: return CompareAge(n, s.creation_ns, now_ns);
    case Criterion::kRmTime: return CompareAge(n, s.rm_time_ns, now_ns);
    case Criterion::kOstPool:
      return a.lustre && Equality(n, n.glob->Matches(a.lustre->pool));
    case Criterion::kOstIndex: {
      if (!a.lustre) return false;
      const auto& osts = a.lustre->osts;
      return Equality(n, std::find(osts.begin(), osts.end(), static_cast<uint32_t>(n.number)) != osts.end());
    }
    case Criterion::kMdtIndex: return a.lustre && Compare(a.lustre->mdt_index, n.op, n.number);
    case Criterion::kFileclass: return Equality(n, s.in_class && s.in_class(n.value));
    case Criterion::kXattr: {
      const std::optional<std::string> value = s.xattr ? s.xattr(n.attribute) : std::nullopt;
      return Equality(n, value && n.glob->Matches(*value));
    }
  }
  return false;
}

bool Evaluate(const Node& n, const Subject& s, int64_t now_ns) {
  switch (n.kind) {
    case Node::Kind::kAnd: return Evaluate(*n.left, s, now_ns) && Evaluate(*n.right, s, now_ns);
    case Node::Kind::kOr: return Evaluate(*n.left, s, now_ns) || Evaluate(*n.right, s, now_ns);
    case Node::Kind::kNot: return !Evaluate(*n.left, s, now_ns);
    case Node::Kind::kCompare: return CompareOne(n, s, now_ns);
  }
  return false;
}

}  // namespace

bool Condition::Matches(const Subject& subject, int64_t now_ns) const {
  return Evaluate(*root_, subject, now_ns);
}

}  // namespace fathom::condition
