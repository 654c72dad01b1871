// inotify_source_impl.h — the inotify Source: watches, event resolution, scans, rescans.
//
// Contract (see fathom/source.h for the interface):
// - Watches the roots' entries, or with `recursive` every directory below them (one inotify
//   watch per directory). Events carry the root they fall under, an absolute path, "inotify"
//   as source and the time the batch was read.
// - The kernel mask always includes the structural events (CREATE, DELETE, MOVED_*, *_SELF)
//   the directory tree needs; reads (OPEN, ACCESS, CLOSE_NOWRITE) and changes (MODIFY,
//   ATTRIB, CLOSE_WRITE) are requested only when SourceOptions::kinds asks for them. Events
//   whose kinds were not asked for are not handed out.
// - A newly created directory is watched and then scanned: everything already inside is
//   reported as CREATE, and a later IN_CREATE for a name the scan reported is dropped, so each
//   creation is reported exactly once.
// - Renames: the kernel's MOVED_FROM/MOVED_TO halves are paired by cookie and handed out
//   adjacent, MOVED_FROM first, under a fresh fathom cookie. A MOVED_FROM without its
//   MOVED_TO left the watched tree: a directory moved out loses its watches. A directory moved
//   within the tree keeps its watches; its node is re-parented. A directory whose MOVED_TO
//   comes without a known directory behind it — moved in from outside the tree, from a
//   directory not watched yet, or renamed before its own watch landed — is watched, listed,
//   and its contents reported as CREATEs after its MOVED_TO (inotify itself reports only the
//   MOVED_TO), so that the stream always says what a directory holds. A listing that meets a
//   directory already watched elsewhere reports it as moved there (MOVED_FROM + MOVED_TO).
// - Convergence: what this source reports is exactly what it knows of the tree, so that a
//   consumer replaying the stream holds the same tree. Queued events about a directory that
//   predate its listing (or a watch placed on one of its subdirectories) cannot be ordered
//   against it; when such an event changes a subdirectory, the directory is marked and, once
//   the queue is empty, listed again and checked against what is known (each subdirectory's
//   watch still on the directory at that path): differences are reported as CREATE/DELETE or
//   moves, so the stream converges on the real tree when the changes stop.
// Threads: Start/Wait/Drain from one thread; Stop and Stats from any thread.
#pragma once

#include <sys/inotify.h>

#include <atomic>
#include <memory>
#include <unordered_set>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/source.h"
#include "sources/inotify/watch_tree.h"
#include "sources/internal/source_util.h"

namespace fathom::inotify_internal {

class InotifySource final : public Source {
 public:
  static Result<std::unique_ptr<Source>> Create(const SourceOptions& options);

  // Size of one read(2) of the inotify queue.
  static constexpr size_t kReadBufferBytes = 256 * 1024;

  std::string_view name() const override { return "inotify"; }
  Status Start() override;
  Status Wait(std::chrono::milliseconds timeout) override;
  Status Drain(std::vector<Event>& out) override;
  void Stop() override;
  SourceStats Stats() const override;

 private:
  // A watch placed on a directory: the node (nullptr when the directory vanished or the watch
  // failed) and whether it is new (false: the directory was already watched).
  struct Placed {
    DirNode* node = nullptr;
    bool is_new = false;
    bool moved = false;  // an existing node re-parented here (reported as a move in kReport)
  };
  enum class ScanMode { kReport, kSilent };

  InotifySource(SourceOptions options, std::vector<std::string> roots,
                source_internal::StopWaker waker);

  // --- reading (inotify_reader.cpp)
  bool Fill();  // one read(2) into the buffer; false when nothing is queued
  void ProcessBuffered(std::vector<Event>& out, size_t limit);
  void HandleMovedFrom(inotify_event* from, std::vector<Event>& out);
  inotify_event* FindMovedTo(uint32_t cookie);
  void Dispatch(const inotify_event* ev, std::vector<Event>& out);
  void HandleSelfEvent(DirNode* dir, uint32_t mask, std::vector<Event>& out);
  void HandleMove(const inotify_event* from, const inotify_event* to, std::vector<Event>& out);
  void Emit(std::vector<Event>& out, uint32_t mask, uint32_t cookie, DirNode* dir,
            std::string_view name);
  uint32_t NextCookie();

  // --- watches and scans (inotify_watches.cpp)
  // Watches `parent/name`. A directory already watched elsewhere is moved here; in kReport
  // mode that is reported as MOVED_FROM (old place) + MOVED_TO (here).
  Result<Placed> AddWatch(DirNode* parent, std::string_view name, ScanMode mode,
                          std::vector<Event>& out);
  // Watches `parent/name` and every directory below it; records entries, and in kReport mode
  // reports each as CREATE (marked scan_pending). Returns the first watch error.
  Status WatchSubtree(DirNode* parent, std::string_view name, ScanMode mode,
                      std::vector<Event>& out);
  // Lists `node`'s directory into its entries; new subdirectories are watched and pushed on
  // `pending` (recursive mode). Returns the first watch error; keeps going after one.
  Status ListInto(DirNode* node, ScanMode mode, std::vector<Event>& out,
                  std::vector<DirNode*>& pending);
  // rm_watch for the node and everything below, then forget them.
  void ReleaseSubtree(DirNode* node);
  // Widens the node's watch to kernel_mask_ (reads) after its listing; no-op without reads.
  void EnableReads(DirNode* node, const std::string& path);
  // The node's own watch is already gone (IN_IGNORED): forget it, release what is below.
  void ForgetNode(DirNode* node);
  void ReportRunningWatchError(const Status& status);
  void HandleOverflow(std::vector<Event>& out);
  // OVERFLOW for each root, then every watched directory reconciled (Depth::kWholeTree).
  void Rescan(std::vector<Event>& out);
  // What is known contradicts itself (events applied in an order the kernel could not make
  // clear): the event is not applied, and Rescan() runs once the queue has been read.
  void WantRescan(std::string_view why);
  // Lists `node` again and reports the differences from what is known. kWholeTree queues every
  // watched subdirectory on `pending`; kThisDirectory only those whose watch is no longer on
  // the directory at their path.
  enum class Depth { kWholeTree, kThisDirectory };
  void Reconcile(DirNode* node, Depth depth, std::vector<Event>& out, std::vector<int>& pending);
  // Reconciles the directories marked by MarkDirty (kThisDirectory), after the queue ran dry.
  void ReconcileDirty(std::vector<Event>& out);
  // --- convergence bookkeeping (inotify_watches.cpp)
  // Events queued now about `node` may predate what was just learned of it (a listing, a watch
  // on a subdirectory): remember up to where the stream holds them.
  void OpenWindow(DirNode* node);
  bool InWindow(const DirNode* node) const { return event_end_ <= node->window_end; }
  void MarkDirty(DirNode* node);
  // Whether `node`'s watch is on the directory now at `path`.
  bool StillAt(const DirNode* node, const std::string& path);
  // During a rescan, the directory at `path` may be one still known at another place (it was
  // moved while events were lost): reports DELETE for what is known below that old place and
  // releases it, so the directory is scanned afresh here. Its entry in the old parent stays
  // for that parent's own reconciliation to report. Returns false if it is a root, or
  // `reconciling` (the directory being listed) or one of its ancestors (all kept).
  bool ForgetOldPlace(const std::string& path, const DirNode* reconciling, std::vector<Event>& out);
  // Reports DELETE for everything known below `node`, deepest first, then releases the
  // watches of `node` and everything below it.
  void DeleteSubtree(DirNode* node, std::vector<Event>& out);
  void EmitDeletesBelow(DirNode* node, std::vector<Event>& out);
  void UpdateWatchCount() { counters_.watches = tree_.size(); }

  SourceOptions options_;
  WatchTree tree_;
  // Watches are placed with scan_mask_ (kernel_mask_ without reads) and widened to
  // kernel_mask_ once the directory has been listed, so that this source's own listings do not
  // come back as OPEN/ACCESS/CLOSE_NOWRITE events.
  uint32_t kernel_mask_ = 0;
  uint32_t scan_mask_ = 0;
  UniqueFd inotify_fd_;
  source_internal::StopWaker waker_;

  // Read buffer: records in [pos_, end_) are read but not processed yet.
  std::unique_ptr<uint64_t[]> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  std::vector<uint64_t> moved_from_copy_;  // a MOVED_FROM kept across a refill of buf_
  int64_t read_ts_ = 0;
  uint64_t bytes_read_ = 0;  // stream offset: bytes read from the inotify descriptor so far
  uint64_t event_end_ = 0;   // stream offset just past the record being processed
  std::vector<int> dirty_;   // directories waiting for a verifying listing (MarkDirty)
  bool rescan_wanted_ = false;

  // Descriptors removed with inotify_rm_watch whose IN_IGNORED has not arrived yet: their
  // remaining queued events are stale, not unresolved.
  std::unordered_set<int> released_wds_;
  uint32_t last_cookie_ = 0;
  source_internal::SourceCounters counters_;
};

}  // namespace fathom::inotify_internal
