// changelog_queue.h — hands resolved batches from a changelog reader thread to the thread
// that drains the source.
//
// A Chunk is the events of whole records and the index of the last of those records, so the
// drainer always knows how far the changelog is covered by what it handed out. Publish()
// waits while `max_events` events are queued (back-pressure: the changelog keeps what is not
// read), Stop() wakes every waiter and makes Publish() refuse. The queue is shared
// (std::shared_ptr) by the source and its reader thread, so a reader stuck inside
// liblustreapi past Stop() can be left behind without touching a destroyed source.
// Thread-safe: every member may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::lustre_source {

struct Chunk {
  std::vector<Event> events;
  uint64_t last_index = 0;
};

// What the reader did; written by the reader thread, read anywhere.
struct ReaderCounters {
  std::atomic<uint64_t> records{0};  // received, malformed ones included
  std::atomic<uint64_t> malformed{0};
  // The lowest index of a malformed record met (0: none): the changelog is never cleared
  // past it, so that it stays there to be inspected.
  std::atomic<uint64_t> first_malformed{0};
  // Lowers first_malformed to `index` (any thread).
  void NoteMalformed(uint64_t index) {
    uint64_t seen = first_malformed.load();
    while ((seen == 0 || index < seen) && !first_malformed.compare_exchange_weak(seen, index)) {
    }
  }
  std::atomic<uint64_t> ignored{0};
  std::atomic<uint64_t> unresolved{0};
  std::atomic<uint64_t> parent_removed{0};
  std::atomic<uint64_t> fid2path_calls{0};
  std::atomic<uint64_t> fid2path_failures{0};
  std::atomic<uint64_t> batches{0};
  // The longest a followed batch held its first record before it was handed on (µs).
  std::atomic<uint64_t> longest_hold_us{0};
};

class ChangelogQueue {
 public:
  static Result<std::shared_ptr<ChangelogQueue>> Create(size_t max_events);

  // Queues `chunk`, waiting while the queue is full; false (chunk dropped) after Stop().
  bool Publish(Chunk chunk);
  // Moves queued chunks, oldest first, to `out`: at least one, then more while they hold at
  // most `max_events` events together; when none was queued, also the reader's error.
  Status Take(size_t max_events, std::deque<Chunk>& out);
  // Returns when a chunk or an error is queued, Stop() was called, or `timeout` passed.
  void Wait(std::chrono::milliseconds timeout);
  // The reader failed for good: Take() returns `status` once the chunks are taken.
  void Fail(Status status);
  void Stop();
  bool stopping() const { return stopping_; }
  // Readable once Stop() was called (for the reader's poll).
  int stop_fd() const { return stop_fd_.get(); }
  // The reader thread has returned.
  void ReaderExited();
  // Waits up to `timeout` for ReaderExited(); whether it happened.
  bool WaitReaderExited(std::chrono::milliseconds timeout);

  ReaderCounters counters;

 private:
  ChangelogQueue(size_t max_events, UniqueFd stop_fd)
      : max_events_(max_events), stop_fd_(std::move(stop_fd)) {}

  const size_t max_events_;
  const UniqueFd stop_fd_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable ready_cv_;  // chunks_, error_, stopping_ or reader_exited_ changed
  std::condition_variable space_cv_;  // room in the queue, or stopping_
  std::deque<Chunk> chunks_;          // guarded by mu_
  size_t queued_events_ = 0;          // guarded by mu_
  Status error_;                      // guarded by mu_
  bool reader_exited_ = false;        // guarded by mu_
};

}  // namespace fathom::lustre_source
