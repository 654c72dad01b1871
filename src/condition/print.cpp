// print.cpp — Condition::ToString: the canonical form, every value quoted, every and/or in
// parentheses, so that it parses back to the same tree.
#include "condition/condition_tree.h"

namespace fathom::condition {
namespace {

using Node = Condition::Node;

std::string Quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

void Print(const Node& n, std::string& out) {
  switch (n.kind) {
    case Node::Kind::kAnd:
    case Node::Kind::kOr:
      out += '(';
      Print(*n.left, out);
      out += n.kind == Node::Kind::kAnd ? " and " : " or ";
      Print(*n.right, out);
      out += ')';
      return;
    case Node::Kind::kNot:
      out += "not ";
      Print(*n.left, out);
      return;
    case Node::Kind::kCompare:
      out += n.criterion->criterion == Criterion::kXattr ? "xattr." + n.attribute : n.criterion->name;
      out += ' ';
      out += OpText(n.op);
      out += ' ';
      out += Quoted(n.value);
      return;
  }
}

}  // namespace

std::string Condition::ToString() const {
  std::string out;
  Print(*root_, out);
  return out;
}

}  // namespace fathom::condition
