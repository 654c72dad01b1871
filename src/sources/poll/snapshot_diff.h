// snapshot_diff.h — the events that turn one scan pass's snapshot into the next one.
//
// Objects are matched by identity (st_dev, st_ino, and the type; a file with several links
// also by parent and name; an object seen under a new name whose birth time, where the file
// system keeps one, is after the earlier pass ended is a new object that took a freed inode
// number), so that a rename is reported as a MOVED_FROM/MOVED_TO pair (one fresh non-zero
// cookie, adjacent) and not as a delete and a create; a moved directory's descendants move
// with it silently, as with inotify. Events come in an order a consumer can replay to
// rebuild the new tree: renames (shallowest new place first, a created directory they move
// into created just before), then deletions (deepest first; none for a name a rename
// replaced), then creations (parents first), then MODIFY (size or mtime of a non-directory
// changed) and ATTRIB (mode, owner or group changed, or the ctime alone: links, xattrs).
// Directories carry ISDIR. Paths are absolute; `root` is the scan root the path lies under.
//
// Not told apart: two names swapped between passes (each reported as moved onto the other),
// a renamed file with several links (a DELETE and a CREATE).
//
// Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "fathom/event.h"
#include "sources/poll/snapshot.h"

namespace fathom::poll_internal {

// Appends to `out` the events from `before` to `after`, stamped `ts_ns`; `cookie` is the
// last cookie used and is advanced for each rename.
void DiffSnapshots(const Snapshot& before, const Snapshot& after, int64_t ts_ns, uint32_t& cookie,
                   std::vector<Event>& out);

}  // namespace fathom::poll_internal
