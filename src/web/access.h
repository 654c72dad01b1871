// access.h — what one API caller may see: its user and its path grants (the aggregator's rule:
// a path is granted when it equals a grant or lies under one on a component boundary), and
// whether it may act. A plain value; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::web {

struct Access {
  std::string user;
  std::optional<uint32_t> uid;     // the user's number on this system, when it has one
  std::vector<std::string> paths;  // granted prefixes: absolute, no trailing '/' ("/" stays)
  bool admin = false;

  // A grant of "/": everything is visible.
  bool Everything() const;
  // Whether `path` is granted.
  bool Covers(std::string_view path) const;
  // The parts of the subtree at `path` ("" or "/": everything) that are granted: `path`
  // itself when a grant covers it, else the grants below it (none: nothing visible).
  std::vector<std::string> ScopesUnder(std::string_view path) const;
};

// "/a/b/" -> "/a/b"; "/" stays "/". nullopt for a path that is not absolute or holds ".",
// ".." or empty components (what a request must not name).
std::optional<std::string> CleanPath(std::string_view path);

}  // namespace fathom::web
