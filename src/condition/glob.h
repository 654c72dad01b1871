// glob.h — the condition language's globs: `?` one character, `*` any run, `[...]` a class
// (`!` or `^` negates, ranges, `]` first is literal), `\` escapes the next character. On
// paths `?`, `*` and classes never match '/', `**` matches any run, and a `**` that fills a
// whole path component ("/a/**/b", "**/b") may also stand for no component at all ("/a/b",
// "b"). Matching is a simulation of the pattern's automaton: linear in the text for a given
// pattern, whatever its stars. Immutable after Compile(): any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fathom::condition {

class Glob {
 public:
  enum class Mode { kName, kPath };
  static Glob Compile(std::string_view pattern, Mode mode, bool ignore_case = false);

  bool Matches(std::string_view text) const;
  // Whether the pattern has no wildcard (then it matches its own text only).
  bool literal() const { return literal_; }
  const std::string& pattern() const { return pattern_; }

 private:
  struct Token {
    enum class Kind { kChar, kAny, kStar, kAnyRun, kClass } kind = Kind::kChar;
    char c = 0;                 // kChar
    bool negated = false;       // kClass
    bool may_skip_dir = false;  // kAnyRun filling a component: may match with the '/' after it
    std::vector<std::pair<unsigned char, unsigned char>> ranges;  // kClass
  };
  bool Step(const Token& t, unsigned char c) const;

  std::string pattern_;
  Mode mode_ = Mode::kName;
  bool ignore_case_ = false;
  bool literal_ = true;
  std::vector<Token> tokens_;
};

}  // namespace fathom::condition
