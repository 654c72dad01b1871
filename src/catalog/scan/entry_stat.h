// entry_stat.h — one entry's catalog attributes, read relative to its directory's descriptor
// (fstatat with AT_SYMLINK_NOFOLLOW, readlinkat for a symbolic link's target).
//
// Stateless; safe from any thread.
#pragma once

#include <sys/stat.h>

#include <string>

#include "fathom/catalog.h"

namespace fathom::scan {

// Reads `name` in directory `dirfd` into `out`. Returns 0 or the errno of the call that
// failed (ENOENT: the entry vanished since it was listed).
int StatEntry(int dirfd, const std::string& name, catalog::Attrs& out);

}  // namespace fathom::scan
