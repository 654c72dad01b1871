// dir_listing.h — list one directory's entries with their type, for watch placement and scans
// (inotify) and for reporting the contents of directories moved into a watched tree.
//
// Stateless; safe from any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::source_internal {

// Calls `fn(name, is_dir)` for every entry of `path` except "." and "..". Symbolic links are
// not followed (a link to a directory is not a directory). Fails with the open(2) errno when
// the directory cannot be opened (ENOENT/ENOTDIR: it vanished or was replaced).
Status ListDirectory(const std::string& path,
                     const std::function<void(std::string_view name, bool is_dir)>& fn);

}  // namespace fathom::source_internal
