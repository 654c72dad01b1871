// inotify_source.h — recursive inotify backend (any local Linux file system).
//
// One inotify instance per source and one watch per watched directory (the roots, or every
// directory below them with SourceOptions::recursive). See inotify_source_impl.h for the
// event semantics (scans of new directories, rename pairing, moves in and out of the tree,
// overflow rescans). No backend settings. The SourceInfo is a plain value; the created
// Source follows fathom/source.h's threading rules.
#pragma once

#include "fathom/source.h"

namespace fathom {

// name "inotify", priority 10. detect() succeeds when inotify_init1 works and every root is an
// existing directory, else says which limit or which path is the problem.
SourceInfo InotifySourceInfo();

}  // namespace fathom
