#include "filter/path_glob.h"

namespace fathom::filter_internal {
namespace {

// Matches one bracket expression at the start of `glob` against `c`; `used` receives its
// length. Returns false with used = 0 when the '[' opens no complete class (it is then a
// plain character).
bool ClassMatch(std::string_view glob, char c, size_t& used, bool& matched) {
  size_t i = 1;
  const bool negate = i < glob.size() && (glob[i] == '!' || glob[i] == '^');
  if (negate) ++i;
  bool hit = false;
  bool first = true;
  for (; i < glob.size(); ++i, first = false) {
    if (glob[i] == ']' && !first) {
      used = i + 1;
      matched = hit != negate && c != '/';
      return true;
    }
    const char lo = glob[i];
    char hi = lo;
    if (i + 2 < glob.size() && glob[i + 1] == '-' && glob[i + 2] != ']') {
      hi = glob[i + 2];
      i += 2;
    }
    if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(lo) &&
        static_cast<unsigned char>(c) <= static_cast<unsigned char>(hi)) {
      hit = true;
    }
  }
  used = 0;
  return false;
}

}  // namespace

bool GlobMatch(std::string_view glob, std::string_view text) {
  size_t g = 0;
  size_t t = 0;
  while (g < glob.size()) {
    const char gc = glob[g];
    if (gc == '*') {
      const bool doublestar = g + 1 < glob.size() && glob[g + 1] == '*';
      if (doublestar) {
        size_t rest = g + 2;
        // "**/" may stand for no directory at all: "a/**/b" matches "a/b".
        if (rest < glob.size() && glob[rest] == '/' && GlobMatch(glob.substr(rest + 1), text.substr(t))) {
          return true;
        }
        for (size_t k = t; k <= text.size(); ++k) {
          if (GlobMatch(glob.substr(rest), text.substr(k))) return true;
        }
        return false;
      }
      for (size_t k = t; k <= text.size(); ++k) {
        if (GlobMatch(glob.substr(g + 1), text.substr(k))) return true;
        if (k < text.size() && text[k] == '/') break;
      }
      return false;
    }
    if (t == text.size()) return false;
    if (gc == '?') {
      if (text[t] == '/') return false;
    } else if (gc == '[') {
      size_t used = 0;
      bool matched = false;
      if (ClassMatch(glob.substr(g), text[t], used, matched)) {
        if (!matched) return false;
        g += used;
        ++t;
        continue;
      }
      if (text[t] != '[') return false;
    } else if (gc == '\\' && g + 1 < glob.size()) {
      if (text[t] != glob[++g]) return false;
    } else if (gc != text[t]) {
      return false;
    }
    ++g;
    ++t;
  }
  return t == text.size();
}

PathGlob::PathGlob(std::string_view pattern) {
  while (pattern.size() > 1 && pattern.back() == '/') {
    dir_only_ = true;
    pattern.remove_suffix(1);
  }
  anchored_ = pattern.find('/') != std::string_view::npos;
  while (pattern.size() > 1 && pattern.front() == '/') pattern.remove_prefix(1);
  pattern_ = pattern;
}

bool PathGlob::Matches(std::string_view relative, bool is_dir) const {
  // Each prefix of `relative` that ends at a component's end: the ancestors (directories),
  // then the path itself.
  size_t start = 0;
  while (start < relative.size()) {
    size_t end = relative.find('/', start);
    const bool last = end == std::string_view::npos;
    if (last) end = relative.size();
    if (!dir_only_ || !last || is_dir) {
      const std::string_view candidate =
          anchored_ ? relative.substr(0, end) : relative.substr(start, end - start);
      if (GlobMatch(pattern_, candidate)) return true;
    }
    start = end + 1;
  }
  return false;
}

}  // namespace fathom::filter_internal
