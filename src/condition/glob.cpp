#include "condition/glob.h"

#include <cctype>

namespace fathom::condition {
namespace {

unsigned char Fold(unsigned char c, bool ignore_case) {
  return ignore_case ? static_cast<unsigned char>(std::tolower(c)) : c;
}

}  // namespace

Glob Glob::Compile(std::string_view pattern, Mode mode, bool ignore_case) {
  Glob g;
  g.pattern_ = std::string(pattern);
  g.mode_ = mode;
  g.ignore_case_ = ignore_case;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    Token t;
    t.kind = Token::Kind::kChar;
    if (c == '\\' && i + 1 < pattern.size()) {
      t.c = pattern[++i];
    } else if (c == '?') {
      t.kind = Token::Kind::kAny;
    } else if (c == '*') {
      size_t stars = 1;
      while (i + 1 < pattern.size() && pattern[i + 1] == '*') ++i, ++stars;
      t.kind = stars >= 2 && mode == Mode::kPath ? Token::Kind::kAnyRun : Token::Kind::kStar;
      if (t.kind == Token::Kind::kAnyRun) {
        const size_t start = i + 1 - stars;
        const bool starts_component = start == 0 || pattern[start - 1] == '/';
        t.may_skip_dir = starts_component && i + 1 < pattern.size() && pattern[i + 1] == '/';
      }
    } else if (c == '[') {
      // A class up to its closing ']' (a ']' first is a member); unclosed: a literal '['.
      size_t j = i + 1;
      Token cls;
      cls.kind = Token::Kind::kClass;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) cls.negated = true, ++j;
      bool closed = false;
      for (bool first = true; j < pattern.size(); first = false) {
        unsigned char lo = static_cast<unsigned char>(pattern[j]);
        if (lo == ']' && !first) {
          closed = true;
          break;
        }
        if (lo == '\\' && j + 1 < pattern.size()) lo = static_cast<unsigned char>(pattern[++j]);
        unsigned char hi = lo;
        if (j + 2 < pattern.size() && pattern[j + 1] == '-' && pattern[j + 2] != ']') {
          hi = static_cast<unsigned char>(pattern[j + 2]);
          j += 2;
        }
        cls.ranges.emplace_back(lo, hi);
        ++j;
      }
      if (closed) {
        t = std::move(cls);
        i = j;
      } else {
        t.c = c;
      }
    } else {
      t.c = c;
    }
    if (t.kind != Token::Kind::kChar) g.literal_ = false;
    g.tokens_.push_back(std::move(t));
  }
  return g;
}

bool Glob::Step(const Token& t, unsigned char c) const {
  const bool slash = c == '/' && mode_ == Mode::kPath;
  switch (t.kind) {
    case Token::Kind::kChar:
      return Fold(static_cast<unsigned char>(t.c), ignore_case_) == Fold(c, ignore_case_);
    case Token::Kind::kAny:
    case Token::Kind::kStar:
      return !slash;
    case Token::Kind::kAnyRun:
      return true;
    case Token::Kind::kClass: {
      if (slash) return false;
      bool in = false;
      for (const auto& [lo, hi] : t.ranges) {
        if ((c >= lo && c <= hi) ||
            (ignore_case_ && Fold(c, true) >= Fold(lo, true) && Fold(c, true) <= Fold(hi, true))) {
          in = true;
          break;
        }
      }
      return in != t.negated;
    }
  }
  return false;
}

bool Glob::Matches(std::string_view text) const {
  // States: "about to match token i" (i == n: matched the whole pattern).
  const size_t n = tokens_.size();
  std::vector<char> now(n + 1, 0), next(n + 1, 0);
  auto close = [&](std::vector<char>& states) {  // the empty matches, forward only
    for (size_t i = 0; i < n; ++i) {
      if (!states[i]) continue;
      const Token& t = tokens_[i];
      if (t.kind == Token::Kind::kStar || t.kind == Token::Kind::kAnyRun) states[i + 1] = 1;
      if (t.may_skip_dir) states[i + 2] = 1;  // "**" and the '/' after it: no component
    }
  };
  now[0] = 1;
  close(now);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (!now[i] || !Step(tokens_[i], c)) continue;
      const Token::Kind k = tokens_[i].kind;
      const size_t to = k == Token::Kind::kStar || k == Token::Kind::kAnyRun ? i : i + 1;
      next[to] = 1;
      any = true;
    }
    if (!any) return false;
    close(next);
    now.swap(next);
  }
  return now[n] != 0;
}

}  // namespace fathom::condition
