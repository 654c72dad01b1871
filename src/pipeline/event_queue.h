// event_queue.h — bounded, blocking hand-off of event batches between two threads.
//
// Push() blocks while the queue holds `capacity` events or more (back-pressure, never drops).
// Pop() takes everything queued (up to `max` events) or waits. Close() wakes both sides;
// after it Push() returns false and Pop() returns what is left, then empty.
// A batch may carry the source position it completes (0: none); such batches are only ever
// taken whole, so Pop() can report the highest position its events complete. A batch without
// a position that holds more than Pop()'s `max` events is handed out `max` at a time.
// Vectors travel back and forth: Pop() keeps the (cleared) vector it is given for a later
// Push(), which hands it to the pusher in place of the batch, so that neither side allocates
// a batch per hand-over once both have grown.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "fathom/event.h"

namespace fathom::internal {

class EventQueue {
 public:
  explicit EventQueue(size_t capacity) : capacity_(capacity) {}

  // Queues `batch` and leaves an empty vector in its place (one Pop() gave back, when there
  // is one).
  bool Push(std::vector<Event>& batch, uint64_t position = 0) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || size_ < capacity_; });
    if (closed_) return false;
    size_ += batch.size();
    batches_.push_back({std::move(batch), position});
    batch.swap(spare_);  // the moved-from batch (no storage) becomes the spare
    not_empty_.notify_one();
    return true;
  }

  // Replaces `out` with up to `max` events (whole batches, or one batch with a position that
  // holds more) and sets `position` to the highest position among them (0 if none); `out`'s
  // old contents are dropped. Returns false when the queue is closed and empty.
  bool Pop(std::vector<Event>& out, size_t max, uint64_t& position) {
    out.clear();
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !batches_.empty(); });
    position = 0;
    if (batches_.empty()) return false;
    if (auto& front = batches_.front(); front.position == 0 && front.events.size() - front.taken > max && max > 0) {
      // Too large to go whole, and no position to keep: the next `max` of its events.
      const auto first = front.events.begin() + static_cast<std::ptrdiff_t>(front.taken);
      out.assign(std::make_move_iterator(first), std::make_move_iterator(first + static_cast<std::ptrdiff_t>(max)));
      front.taken += max;
      size_ -= max;
      not_full_.notify_all();
      return true;
    }
    while (!batches_.empty() &&
           (out.empty() || out.size() + batches_.front().events.size() <= max)) {
      position = std::max(position, batches_.front().position);
      auto& front = batches_.front().events;
      if (const size_t taken = batches_.front().taken; taken > 0) {  // the rest of a split batch
        front.erase(front.begin(), front.begin() + static_cast<std::ptrdiff_t>(taken));
      }
      size_ -= front.size();
      if (out.empty()) {
        if (out.capacity() > spare_.capacity()) spare_.swap(out);
        out.swap(front);
      } else {
        out.insert(out.end(), std::make_move_iterator(front.begin()),
                   std::make_move_iterator(front.end()));
      }
      batches_.pop_front();
    }
    not_full_.notify_all();
    return true;
  }

  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  struct Batch {
    std::vector<Event> events;
    uint64_t position;
    size_t taken = 0;  // events already handed out (of a batch split for size)
  };
  std::deque<Batch> batches_;               // guarded by mu_
  std::vector<Event> spare_;                // empty; guarded by mu_
  size_t size_ = 0;                         // guarded by mu_
  bool closed_ = false;                     // guarded by mu_
};

}  // namespace fathom::internal
