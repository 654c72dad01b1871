// chunk_queue.h — the bounded hand-off from the scan's workers to its one consumer thread.
//
// Push() blocks while the queue holds `capacity` items (back-pressure: a slow sink slows
// the workers instead of letting listings pile up in memory). The consumer takes everything
// queued at once (TakeAll), so that it pays one lock per batch, not per chunk. Close() says
// no producer will push again; Stop() abandons what is queued and releases every waiter.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <variant>

#include "catalog/scan/scan_sink.h"

namespace fathom::scan {

using ScanItem = std::variant<ScanChunk, ScanProblem>;

class ChunkQueue {
 public:
  explicit ChunkQueue(size_t capacity) : capacity_(capacity) {}

  // False when the queue was stopped (the item is dropped).
  bool Push(ScanItem&& item);
  // Moves every queued item into `out` (cleared first), waiting for at least one. False when
  // the queue is closed and empty, or stopped.
  bool TakeAll(std::deque<ScanItem>& out);
  void Close();
  void Stop();

 private:
  std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<ScanItem> items_;  // guarded by mu_
  size_t capacity_;
  bool closed_ = false;   // guarded by mu_
  bool stopped_ = false;  // guarded by mu_
};

}  // namespace fathom::scan
