// catalog_path.h — the catalog's paths: absolute, '/'-separated, no trailing '/', no "." or
// ".." components; a path is a root (the longest one that is a prefix at a component
// boundary) followed by names. Backend-neutral pure functions, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::catalog {

// An error naming `path` when it is not absolute, has an empty, "." or ".." component, or
// ends in '/' (other than "/" itself).
Status CheckPath(std::string_view path);

// Whether `path` is `prefix` or lies below it.
bool PathIsUnder(std::string_view path, std::string_view prefix);

// The names of `path` below `root` (which PathIsUnder(path, root)); none for the root itself.
std::vector<std::string_view> NamesBelow(std::string_view path, std::string_view root);

// `dir` + "/" + `name` ("/" + name below the root "/").
std::string JoinPath(std::string_view dir, std::string_view name);

}  // namespace fathom::catalog
