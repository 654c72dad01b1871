// poll_source.h — the poll backend: for file systems that do not notify (NFS, SMB/CIFS,
// FUSE without notification), the tree is scanned every interval and each pass compared with
// the previous one (snapshot_diff.h says which events come out and in what order).
//
// Start() runs the first pass, which establishes the state silently (as inotify's watches
// do); later passes run on the source's own thread, one interval after the previous pass
// began (at once when a pass took longer than the interval, which is then also reported as
// an OVERFLOW: changes made and undone within one pass are not seen). Settings:
// poll_settings.h. The whole subtree of each root is scanned; without
// SourceOptions::recursive only the roots' own entries are reported. Symbolic links are not
// followed and other file systems below a root are not entered. Stats().rescans counts the
// passes.
//
// Threading: as fathom/source.h: Wait()/Drain() from one thread, Stop() and Stats() from any.
#pragma once

#include "fathom/source.h"

namespace fathom {

// name "poll", priority 30. Named with --backend poll it serves any directory; under "auto"
// it is chosen only when every root is on a file system that does not notify (statfs
// f_type), and logs which file system made it the choice.
SourceInfo PollSourceInfo();

}  // namespace fathom
