// expression.cpp — GNU find's short-circuit evaluation of the operator tree.
#include "catalog/find/expression.h"

namespace fathom::catalog::find {

bool Evaluate(ExprNode& node, const Entry& entry, EvalContext& ctx) {
  switch (node.kind) {
    case ExprNode::Kind::kAnd:
      return Evaluate(*node.left, entry, ctx) && Evaluate(*node.right, entry, ctx);
    case ExprNode::Kind::kOr:
      return Evaluate(*node.left, entry, ctx) || Evaluate(*node.right, entry, ctx);
    case ExprNode::Kind::kNot:
      return !Evaluate(*node.left, entry, ctx);
    case ExprNode::Kind::kComma:
      Evaluate(*node.left, entry, ctx);
      return Evaluate(*node.right, entry, ctx);
    case ExprNode::Kind::kPredicate:
      return node.predicate->Evaluate(entry, ctx);
  }
  return false;
}

Status FinishAll(Expression& expr, EvalContext& ctx) {
  Status first;
  for (Predicate* p : expr.predicates) {
    Status s = p->Finish(ctx);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace fathom::catalog::find
