// scanner.h — the parallel tree scanner: lists every name below one or more roots with its
// lstat(2) attributes and hands them, a directory chunk at a time, to a ScanSink.
//
// Traversal: N worker threads read directories relative to directory descriptors (openat
// with O_DIRECTORY|O_NOFOLLOW, fstatat with AT_SYMLINK_NOFOLLOW, getdents64). Found
// directories go on a bounded last-in-first-out stack shared by the workers (depth-first, so
// pending work stays small); when it is full, the worker that found a directory reads it
// itself, at once, through openat on the descriptor it holds, up to `max_depth_per_worker`
// levels (which bounds the descriptors a worker holds), beyond which the directory is queued
// by path whatever the stack's size. A directory of any width is read `chunk_entries` names at
// a time and each chunk is handed on before the next is read.
//
// Memory is bounded whatever the tree: pending directories (about `pending_directories`),
// queued chunks (`queued_chunks` x `chunk_entries` entries) and, per worker, one chunk per
// level it descended itself. Open descriptors: at most threads x (max_depth_per_worker + 1).
//
// Semantics: symbolic links are never followed; by default a scan does not cross into other
// file systems (find -xdev: a mount point is reported as an entry of its parent, its
// contents are not read); directories that cannot be read (EACCES, ...) are reported to the
// sink as ScanProblems and counted, never fatal; names that vanish while the scan runs
// (ENOENT between listing and lstat, a directory gone or replaced before it is opened) are
// skipped and counted. A scan is not a snapshot: a name moved while the scan runs may be
// reported at both places or at neither (Observation::time_ns says when each was read).
//
// Threading: Run() blocks and calls the sink from the calling thread only (see
// scan_sink.h). Stop() and Progress() may be called from any thread at any time; Stop() makes
// a running Run() return promptly, and every later Run() at once. A Scanner runs one scan at a
// time; a scanner that was not stopped may run any number of them, one after the other.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/scan/scan_sink.h"
#include "fathom/status.h"

namespace fathom::scan {

class ChunkQueue;
class WorkStack;

struct ScanOptions {
  unsigned threads = 0;               // worker threads; 0: one per CPU
  bool cross_devices = false;         // read below mount points too
  size_t chunk_entries = 1024;        // names per chunk
  size_t queued_chunks = 0;           // chunks waiting for the sink; 0: 4 per worker
  size_t pending_directories = 4096;  // directories queued for any worker
  size_t max_depth_per_worker = 16;   // levels a worker descends by itself
  // Called by the workers for every entry read and every directory's own attributes, with
  // a descriptor on the directory holding it (on the directory itself for its own) and its
  // absolute path: adds what lstat does not say (Lustre's view of the object). Must be
  // thread-safe; leaves `attrs` as they are when it has nothing to add.
  std::function<void(int dirfd, const std::string& path, catalog::Attrs& attrs)> describe = nullptr;
};

// A snapshot of the counters, for a progress line.
struct ScanProgress {
  uint64_t entries = 0;              // names listed (roots not included)
  uint64_t directories_done = 0;     // directories read to their end
  uint64_t directories_pending = 0;  // found, not yet read
  uint64_t errors = 0;               // ScanProblems reported
  uint64_t vanished = 0;             // names gone before they could be read
  uint64_t bytes = 0;                // sum of the listed entries' sizes
  std::chrono::nanoseconds elapsed{0};
};

class Scanner {
 public:
  explicit Scanner(ScanOptions options = {});
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // Scans the directories `roots` (absolute paths). Fails at once when a root is not a
  // readable directory; after Stop(), fails with std::errc::operation_canceled once the
  // workers have returned; otherwise Ok, whatever problems were reported to the sink.
  Status Run(const std::vector<std::string>& roots, ScanSink& sink);
  void Stop();
  ScanProgress Progress() const;

 private:
  class Worker;

  ScanOptions options_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<int64_t> started_ns_{0};
  std::atomic<int64_t> finished_ns_{0};
  std::atomic<uint64_t> entries_{0};
  std::atomic<uint64_t> directories_done_{0};
  std::atomic<uint64_t> directories_pending_{0};
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> vanished_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> next_token_{1};
  // The running scan's stop hooks (null between scans); guarded by stop_mu_.
  std::mutex stop_mu_;
  WorkStack* stack_ = nullptr;
  ChunkQueue* queue_ = nullptr;
};

}  // namespace fathom::scan
