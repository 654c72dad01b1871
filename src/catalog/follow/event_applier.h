// event_applier.h — applies fathom's event stream to the catalog, batch by batch.
//
// Each Apply() is one transaction per stretch of events (two when a rescan splits it), which
// records in the catalog, with the changes, the id of the last event applied: a consumer
// killed at any point resumes after what the catalog holds, and nothing is applied twice.
//
// Namespace events are applied in order: DELETE removes a name (a directory with its
// subtree), a MOVED_FROM/MOVED_TO pair renames (one name update whatever lies below), a lone
// MOVED_FROM (moved out of the roots) removes. CREATE, MODIFY, ATTRIB, CLOSE_WRITE and the
// target of a rename only mark the path (and a name coming or going marks its directory,
// whose times, size and link count change without an event about it): once the stretch is
// read, every marked path is read from the live file system once (lstat) and put into the
// catalog with what it is now, as of the newest event applied. What cannot be put yet — a
// path gone since, a name another object still holds in the catalog, an object the catalog
// still holds elsewhere — is kept pending (in the catalog, committed with the position) and
// tried again after every stretch, carried along by renames and dropped by removals, until
// the stream's later events have made room.
//
// What is read lives in the present while the catalog stands at the stream's point: an object
// read under a name may have reached it by events still to come, and a directory may since
// have been replaced. So every directory where names came, went or were read is noted
// (carried along by renames, kept in the catalog with the position), and Settle(), called
// once the stream has nothing more, compares each with the live directory and corrects the
// catalog (DirectorySettler): whatever order the stream and the reads came in, a catalog
// caught up with a quiet file system holds exactly what is there.
//
// OVERFLOW (the stream could not say what changed) rescans the subtree it names, after what
// came before it is committed and before its own id is; so does a directory's MOVED_TO
// without its MOVED_FROM (moved in from outside the roots: what lies below it is new here).
// PARENT_REMOVED changes nothing: the object went with its directory, whose removal the
// stream holds after it.
//
// Lustre events name their objects by FID too (LustreObjects): a namespace event is applied
// in the directory its parent FID names where the catalog holds that directory (as of the
// stream's point), not where the collector placed it (a rename logged on another MDT may be
// stored after the records it already placed at the new path, or before those it placed at
// the old one); and an object whose path no longer leads to it when read (renamed since, on
// another MDT) is read through MOUNT/.lustre/fid/[FID] and updated where the catalog holds it.
//
// Paths outside every root of the catalog are ignored, except that an event's root (the
// directory a source watches) becomes a root of the catalog when it lies under none: it is
// scanned, like an OVERFLOW's subtree, so the catalog holds what was there before.
//
// Used from one thread, with the Catalog it is given (which it does not own).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/follow/directory_settler.h"
#include "catalog/follow/dirty_paths.h"
#include "catalog/follow/lustre_objects.h"
#include "fathom/catalog.h"
#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::catalog {

struct ApplyCounters {
  uint64_t events = 0;          // events applied
  uint64_t reads = 0;           // paths read from the file system (one per marked path)
  uint64_t gone = 0;            // marked paths already gone when read
  uint64_t outside = 0;         // events about paths outside every root
  uint64_t rescans = 0;         // subtrees scanned (OVERFLOW, a new root, a settled directory)
  uint64_t settled = 0;         // directories compared with the live ones by Settle()
  uint64_t corrected = 0;       // names Settle() found wrong and corrected
  uint64_t placed = 0;          // Lustre events applied in their parent FID's directory
};

class EventApplier {
 public:
  // Makes the catalog's subtree at `path` equal to the file system (its own transactions).
  using Rescan = std::function<Status(std::string_view path)>;

  // `stream`: the consumer name under which the catalog records the last id applied.
  // `describe`, when given, adds what lstat does not say (Lustre's view: FID, MDT, layout) to
  // the attributes of every object read before it is put.
  EventApplier(Catalog& catalog, std::string stream, Rescan rescan, DescribeObject describe = nullptr);

  // Applies `events` (ids increasing) and commits them. A MOVED_FROM that ends them is held
  // back (its MOVED_TO may start the next events: a batch boundary must not turn a rename
  // into a removal and a creation) until the next Apply() or Flush().
  Status Apply(std::span<const Event> events);
  // Applies what is held back once it was held for `min_age`: the stream has nothing more
  // now, so a MOVED_FROM held is one without its MOVED_TO (moved out of the roots). A writer
  // still running may store the halves of a rename moments apart: a live follower waits.
  Status Flush(std::chrono::milliseconds min_age = std::chrono::milliseconds(0));

  // Compares the directories noted since the last Settle() with the live ones and makes the
  // catalog hold what they hold, as of the moment it starts (events of changes made after it
  // still apply). A directory whose subtree is gone (or made again) by the time it is scanned
  // is compared again, for a few rounds. Call when the stream has nothing more; does nothing
  // while a MOVED_FROM is held.
  Status Settle();

  const ApplyCounters& counters() const { return counters_; }
  // The last id the catalog confirmed applied: by its last commit the server confirmed, or as
  // read from the catalog before the first (0 until the first Apply()).
  uint64_t last_applied() const { return last_applied_; }

 private:
  // Reads the roots, the position and the pending paths from the catalog, once.
  Status LoadState();
  // What is kept in the catalog with each commit: pending paths as they are, unsettled
  // directories with one '/' after them, subtrees owed a rescan with two.
  std::vector<std::string> Unfinished() const;
  Status Commit(Batch& batch, uint64_t through);
  void NoteUnsettled(std::string_view dir);
  // Applies `events` in one transaction, committed with `through` as the last id.
  Status ApplyAll(std::span<const Event> events);
  Status ApplyStretch(std::span<const Event> events, uint64_t through);
  Status ApplyEvent(Batch& batch, std::span<const Event> events, size_t& i);
  // `raw`, or (in `placed`) a copy of it in the directory its parent FID names in the
  // catalog, when that is elsewhere (Lustre namespace events).
  Result<const Event*> Place(Batch& batch, const Event& raw, std::optional<Event>& placed);
  // MOUNT/.lustre/fid/[FID] of the event's object; "" when it has none.
  std::string ObjectPathOf(const Event& e);
  // After `entry.path` was read (`at_path`, nullopt when gone): when it no longer leads to
  // the entry's object, the object is read through its object path and updated where the
  // catalog holds it.
  Status RefreshObject(Batch& batch, const DirtyPath& entry, const std::optional<Attrs>& at_path);
  Status ApplyRename(Batch& batch, const Event& from, const Event& to);
  Status ApplyRemove(Batch& batch, const Event& e);
  // Removes the catalog's name at e.path (nothing else), as e says.
  Status RemoveName(Batch& batch, const Event& e);
  Status RefreshMarked(Batch& batch);
  void MarkParent(std::string_view path);
  // The entry of `path`'s parent, put into the catalog from the file system when missing;
  // 0 when the path lies outside every root or its parent is gone.
  Result<EntryId> ParentOf(Batch& batch, std::string_view path);
  // Scans the subtree at `path`; one that is gone when scanned leaves its parent to settle.
  // One comparison of the noted directories with the live ones, and the scans it owes.
  Status SettleRound();
  Status ScanSubtree(const std::string& path);
  // Whether `path` is a root or its parent is a directory in the catalog (so that a scan of
  // `path` can place it).
  Result<bool> ParentIsDirectory(const std::string& path);
  bool UnderRoot(std::string_view path) const;
  Observation AsOfStream() const;

  Catalog& catalog_;
  LustreObjects lustre_;
  std::string stream_;
  Rescan rescan_;
  DescribeObject describe_;
  std::vector<std::string> roots_;
  bool roots_loaded_ = false;
  int64_t stretch_ts_ns_ = 0;  // the newest event's time in the stretch being applied
  DirtyPaths marked_;
  // Paths that could not be put when read (gone, or their name or object still held
  // otherwise in the catalog), kept in the catalog with each commit and tried again after
  // every stretch, carried along by renames, dropped by removals.
  DirtyPaths pending_;
  // Directories to compare with the live ones once the stream has nothing more, carried
  // along by renames like pending_.
  DirtyPaths unsettled_;
  // Subtrees a Settle() found unknown, to scan (kept in the catalog until scanned).
  std::vector<std::string> owed_;
  uint64_t last_applied_ = 0;  // the id the catalog has applied through
  std::vector<Event> held_;  // a MOVED_FROM that ended the last events applied
  std::chrono::steady_clock::time_point held_at_;
  ApplyCounters counters_;
};

}  // namespace fathom::catalog
