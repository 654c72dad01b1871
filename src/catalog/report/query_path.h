// query_path.h — paths given on the command line (made absolute by LexicalPath, fathom/
// catalog.h: the file system is never asked, a query may run where the tree is not mounted)
// and how they are printed. Pure functions, any thread.
#pragma once

#include <string>
#include <string_view>

namespace fathom::catalog::report {

// The directory the process runs in ("/" when it cannot be read).
std::string CurrentDirectory();

// How a path below a walk's start is written when the start was given as `arg` (GNU du and
// find): `arg` with one trailing '/' removed, then "/" and the path relative to `start`.
// `path` is `start` or lies below it.
std::string DisplayPath(std::string_view arg, std::string_view start, std::string_view path);

}  // namespace fathom::catalog::report
