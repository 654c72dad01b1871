// narrow.cpp — what a condition tells about its matches before they are read: the bounds of
// its top-level conjunction on the catalog's indexes (Narrow), and the file classes and
// extended attributes it names.
#include <algorithm>
#include <limits>

#include "condition/condition_tree.h"

namespace fathom::condition {
namespace {

using Node = Condition::Node;

void AtLeast(std::optional<int64_t>& bound, int64_t value) { bound = bound ? std::max(*bound, value) : value; }
void AtMost(std::optional<int64_t>& bound, int64_t value) { bound = bound ? std::min(*bound, value) : value; }

// value OP n as bounds on value.
void Bound(Op op, int64_t n, std::optional<int64_t>& min, std::optional<int64_t>& max) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  switch (op) {
    case Op::kEq: AtLeast(min, n), AtMost(max, n); break;
    case Op::kGt: AtLeast(min, n == kMax ? n : n + 1); break;
    case Op::kGe: AtLeast(min, n); break;
    case Op::kLt: AtMost(max, n - 1); break;
    case Op::kLe: AtMost(max, n); break;
    case Op::kNe: break;
  }
}

// An age bound (now - time OP age) as bounds on the time: the order flips.
Op Flipped(Op op) {
  switch (op) {
    case Op::kLt: return Op::kGt;
    case Op::kLe: return Op::kGe;
    case Op::kGt: return Op::kLt;
    case Op::kGe: return Op::kLe;
    default: return op;
  }
}

void NarrowOne(const Node& n, catalog::Selection& sel, int64_t now_ns) {
  const bool eq = n.op == Op::kEq;
  switch (n.criterion->criterion) {
    case Criterion::kOwner:
      if (eq && !n.glob && !n.no_account) sel.uid = static_cast<uint32_t>(n.number);
      break;
    case Criterion::kGroup:
      if (eq && !n.glob && !n.no_account) sel.gid = static_cast<uint32_t>(n.number);
      break;
    case Criterion::kSize: Bound(n.op, n.number, sel.min_size, sel.max_size); break;
    case Criterion::kLastMod: Bound(Flipped(n.op), now_ns - n.number, sel.min_mtime_ns, sel.max_mtime_ns); break;
    case Criterion::kType:
      if (eq) sel.type = static_cast<uint32_t>(n.number);
      break;
    case Criterion::kName:
    case Criterion::kIname:
      if (eq) {
        const Glob glob = *n.glob;
        sel.name_tests.push_back([glob](std::string_view name) { return glob.Matches(name); });
      }
      break;
    default: break;
  }
}

void NarrowAll(const Node& n, catalog::Selection& sel, int64_t now_ns) {
  if (n.kind == Node::Kind::kAnd) {
    NarrowAll(*n.left, sel, now_ns);
    NarrowAll(*n.right, sel, now_ns);
  } else if (n.kind == Node::Kind::kCompare) {
    NarrowOne(n, sel, now_ns);
  }
}

void Collect(const Node& n, Criterion criterion, std::vector<std::string>& out) {
  if (n.kind != Node::Kind::kCompare) {
    if (n.left) Collect(*n.left, criterion, out);
    if (n.right) Collect(*n.right, criterion, out);
    return;
  }
  if (n.criterion->criterion != criterion) return;
  const std::string& name = criterion == Criterion::kXattr ? n.attribute : n.value;
  if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

}  // namespace

void Condition::Narrow(catalog::Selection& selection, int64_t now_ns) const {
  NarrowAll(*root_, selection, now_ns);
}

bool Condition::NeedsAttributes() const {
  std::vector<const Node*> stack{root_.get()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n->kind != Node::Kind::kCompare) {
      if (n->left) stack.push_back(n->left.get());
      if (n->right) stack.push_back(n->right.get());
      continue;
    }
    switch (n->criterion->criterion) {
      case Criterion::kTree:
      case Criterion::kPath:
      case Criterion::kName:
      case Criterion::kIname:
        break;
      default:
        return true;
    }
  }
  return false;
}

std::vector<std::string> Condition::Fileclasses() const {
  std::vector<std::string> out;
  Collect(*root_, Criterion::kFileclass, out);
  return out;
}

std::vector<std::string> Condition::Xattrs() const {
  std::vector<std::string> out;
  Collect(*root_, Criterion::kXattr, out);
  return out;
}

}  // namespace fathom::condition
