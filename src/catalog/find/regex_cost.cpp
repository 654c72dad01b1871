// regex_cost.cpp — the expanded size and nesting of a regular expression, from its text.
#include "catalog/find/regex_cost.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

namespace fathom::catalog::find {
namespace {

// A group being read: the size of what is complete, and of the last operand (which a
// following repetition operator applies to).
struct Frame {
  double done = 0;
  double last = 0;
  void Atom(double size) {
    done += last;
    last = size;
  }
  double Total() const { return done + last; }
};

// Skips a bracket expression starting at pattern[i] == '['; returns the index of its ']'
// (or the end when unclosed).
size_t SkipBracket(std::string_view pattern, size_t i) {
  size_t j = i + 1;
  if (j < pattern.size() && pattern[j] == '^') ++j;
  if (j < pattern.size() && pattern[j] == ']') ++j;
  while (j < pattern.size() && pattern[j] != ']') {
    if (pattern[j] == '[' && j + 1 < pattern.size() &&
        (pattern[j + 1] == ':' || pattern[j + 1] == '.' || pattern[j + 1] == '=')) {
      const char closing[] = {pattern[j + 1], ']'};
      const size_t close = pattern.find(std::string_view(closing, 2), j + 2);
      if (close != std::string_view::npos) {
        j = close + 2;
        continue;
      }
    }
    ++j;
  }
  return std::min(j, pattern.size());
}

// An interval's copies: "{m}", "{m,}", "{m,n}" (or "\{...\}") starting at pattern[i]; on
// success *end is the index of its last character.
std::optional<double> Interval(std::string_view pattern, size_t i, size_t* end) {
  size_t j = i;
  auto number = [&]() -> std::optional<double> {
    if (j >= pattern.size() || !std::isdigit(static_cast<unsigned char>(pattern[j]))) return std::nullopt;
    double v = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])))
      v = std::min(v * 10 + (pattern[j++] - '0'), 1e9);
    return v;
  };
  std::optional<double> low = number();
  std::optional<double> high = low;
  bool unbounded = false;
  if (j < pattern.size() && pattern[j] == ',') {
    ++j;
    high = number();
    unbounded = !high;
  }
  if (!low && !high) return std::nullopt;
  if (j < pattern.size() && pattern[j] == '\\') ++j;
  if (j >= pattern.size() || pattern[j] != '}') return std::nullopt;
  *end = j;
  const double copies = unbounded ? low.value_or(0) + 1 : std::max(low.value_or(0), high.value_or(0));
  return std::max(copies, 1.0);
}

}  // namespace

RegexCost EstimateRegexCost(std::string_view pattern) {
  RegexCost cost;
  std::vector<Frame> frames(1);
  auto open = [&] {
    frames.emplace_back();
    cost.depth = std::max(cost.depth, static_cast<int>(frames.size()) - 1);
  };
  auto close = [&] {
    if (frames.size() == 1) {  // an unmatched ")" is a literal
      frames.back().Atom(1);
      return;
    }
    const double size = frames.back().Total() + 1;
    frames.pop_back();
    frames.back().Atom(size);
  };
  int run = 0;
  auto repeat = [&](double copies) {
    Frame& f = frames.back();
    f.last = f.last * copies + 1;
    cost.longest_run = std::max(cost.longest_run, ++run);
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    // Escaped or not, an operator is taken as one: the syntaxes differ in which they mean.
    const bool escaped = pattern[i] == '\\' && i + 1 < pattern.size();
    const char c = escaped ? pattern[++i] : pattern[i];
    size_t end = 0;
    const int run_before = run;
    run = 0;
    if (c == '(') {
      open();
    } else if (c == ')') {
      close();
    } else if (c == '{') {
      if (std::optional<double> copies = Interval(pattern, i + 1, &end)) {
        run = run_before;
        repeat(*copies);
        i = end;
      } else {
        frames.back().Atom(1);
      }
    } else if (c == '+') {
      run = run_before;
      repeat(2);
    } else if (c == '*' || c == '?') {
      run = run_before;
      repeat(1);
    } else if (c == '[' && !escaped) {
      i = SkipBracket(pattern, i);
      frames.back().Atom(1);
    } else {  // a character, '.', '|' (an alternation is sized as a concatenation) or an anchor
      frames.back().Atom(1);
    }
  }
  while (frames.size() > 1) close();
  cost.positions = frames.back().Total();
  return cost;
}

}  // namespace fathom::catalog::find
