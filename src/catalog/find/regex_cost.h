// regex_cost.h — what a regular expression would cost glibc's compiler, estimated from its
// text, so that find can refuse one that would exhaust memory or the stack before compiling.
//
// glibc copies the operand of every bounded repetition ({m,n} → n copies, + → two), builds
// one node per operator, and keeps for every node the set of nodes reachable without
// reading a character: its memory grows with the square of the expanded size, and its
// recursion with the nesting of groups; a run of repetition operators applied one to another
// (a?+?+?+) makes its closure computation exponential in the run. The estimate reads the pattern in any of find's
// syntaxes at once (both "(" and "\(" open a group, both "{" and "\{" start an interval),
// so it may overstate, never understate, a pattern's size.
#pragma once

#include <string_view>

namespace fathom::catalog::find {

struct RegexCost {
  double positions = 0;  // nodes once every repetition is copied out
  int depth = 0;         // deepest nesting of groups
  int longest_run = 0;   // most repetition operators in a row
};

RegexCost EstimateRegexCost(std::string_view pattern);

}  // namespace fathom::catalog::find
