// live_catalog.cpp — the test-only catalog over the live file system (see the header).
#include "catalog/find/live_catalog.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace fathom::catalog::find_testing {
namespace {

Status NotHere(const char* what) {
  return Status::Error(std::string(what) + " is not part of the test catalog (queries only)");
}

bool Selected(const Selection& s, const Attrs& a) {
  return (!s.uid || a.uid == *s.uid) && (!s.gid || a.gid == *s.gid) &&
         (!s.min_size || a.size >= *s.min_size) && (!s.max_size || a.size <= *s.max_size) &&
         (!s.min_mtime_ns || a.mtime_ns >= *s.min_mtime_ns) &&
         (!s.max_mtime_ns || a.mtime_ns <= *s.max_mtime_ns) && (!s.type || (a.mode & S_IFMT) == *s.type);
}

}  // namespace

EntryId LiveCatalog::IdOf(const std::string& path) {
  auto [it, added] = ids_.emplace(path, static_cast<EntryId>(paths_.size() + 1));
  if (added) paths_.push_back(path);
  return it->second;
}

bool LiveCatalog::Inside(std::string_view path) const {
  return path == root_ || (path.size() > root_.size() && path.substr(0, root_.size()) == root_ &&
                           path[root_.size()] == '/');
}

Result<std::optional<Node>> LiveCatalog::Stat(std::string_view path) {
  std::string p(path);
  if (!Inside(p)) return std::optional<Node>();
  struct stat st {};
  if (lstat(p.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<Node>();
    return Status::FromErrno(errno, "lstat " + p);
  }
  Node n;
  n.id = IdOf(p);
  size_t slash = p.rfind('/');
  n.parent = p == root_ ? 0 : IdOf(slash == 0 ? "/" : p.substr(0, slash));
  n.name = p == root_ ? p : p.substr(slash + 1);
  Attrs& a = n.attrs;
  a.dev = st.st_dev;
  a.ino = st.st_ino;
  a.mode = st.st_mode;
  a.uid = st.st_uid;
  a.gid = st.st_gid;
  a.nlink = st.st_nlink;
  a.size = st.st_size;
  a.blocks = st.st_blocks;
  a.atime_ns = st.st_atim.tv_sec * 1000000000LL + st.st_atim.tv_nsec;
  a.mtime_ns = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  a.ctime_ns = st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
  if (S_ISLNK(st.st_mode)) {
    std::string target(4096, '\0');
    ssize_t len = readlink(p.c_str(), target.data(), target.size());
    if (len < 0) return Status::FromErrno(errno, "readlink " + p);
    target.resize(static_cast<size_t>(len));
    a.symlink = target;
  }
  return std::optional<Node>(std::move(n));
}

Status LiveCatalog::Children(EntryId dir, const std::function<bool(const Node&)>& fn) {
  if (dir < 1 || static_cast<size_t>(dir) > paths_.size()) return Status::Error("no such entry");
  std::string path = paths_[static_cast<size_t>(dir - 1)];
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return Status::FromErrno(errno, "opendir " + path);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    FATHOM_ASSIGN_OR_RETURN(auto node, Stat(path + "/" + name));
    if (node && !fn(*node)) break;
  }
  return Status::Ok();
}

bool LiveCatalog::WalkFrom(const std::string& path, int depth, const std::function<WalkStep(const Visit&)>& fn) {
  auto node = Stat(path);
  if (!node.ok() || !node->has_value()) return true;
  WalkStep step = fn(Visit{**node, path, depth});
  if (step == WalkStep::kStop) return false;
  if (step == WalkStep::kSkipChildren || !S_ISDIR((*node)->attrs.mode)) return true;
  bool go_on = true;
  std::vector<std::string> children;
  Status s = Children((*node)->id, [&](const Node& child) {
    children.push_back(path == "/" ? "/" + child.name : path + "/" + child.name);
    return true;
  });
  for (const auto& child : children)
    if (!WalkFrom(child, depth + 1, fn)) return go_on = false;
  return go_on && s.ok();
}

Status LiveCatalog::Walk(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) {
  ++walk_calls;
  WalkFrom(std::string(path), 0, fn);
  return Status::Ok();
}

Status LiveCatalog::Select(const Selection& selection, const std::function<bool(const Visit&)>& fn) {
  ++select_calls;
  WalkFrom(root_, 0, [&](const Visit& v) {
    if (!Selected(selection, v.node.attrs)) return WalkStep::kContinue;
    return fn(v) ? WalkStep::kContinue : WalkStep::kStop;
  });
  return Status::Ok();
}

Result<std::unique_ptr<Batch>> LiveCatalog::Begin() { return NotHere("Begin"); }
Result<uint64_t> LiveCatalog::LastApplied(std::string_view) { return NotHere("LastApplied"); }
Result<uint64_t> LiveCatalog::BeginScan(std::string_view, bool) { return NotHere("BeginScan"); }
Status LiveCatalog::FinishScan(uint64_t, const std::function<void(uint64_t)>&) { return NotHere("FinishScan"); }
Result<std::vector<std::string>> LiveCatalog::Paths(EntryId) { return NotHere("Paths"); }
Result<Totals> LiveCatalog::Subtree(EntryId) { return NotHere("Subtree"); }
Result<Totals> LiveCatalog::Usage(EntryId, bool) { return NotHere("Usage"); }
Result<std::vector<AcctRow>> LiveCatalog::Accounting() { return NotHere("Accounting"); }
Status LiveCatalog::Removed(std::string_view, int64_t, const std::function<bool(const RemovedEntry&)>&) {
  return NotHere("Removed");
}
Result<CatalogInfo> LiveCatalog::Info() { return NotHere("Info"); }
Result<RecountReport> LiveCatalog::Recount(bool) { return NotHere("Recount"); }

}  // namespace fathom::catalog::find_testing
