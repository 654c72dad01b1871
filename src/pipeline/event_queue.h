// event_queue.h — bounded, blocking hand-off of event batches between two threads.
//
// Push() blocks while the queue holds `capacity` events or more (back-pressure, never drops).
// Pop() takes everything queued (up to `max` events) or waits. Close() wakes both sides;
// after it Push() returns false and Pop() returns what is left, then empty.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "fathom/event.h"

namespace fathom::internal {

class EventQueue {
 public:
  explicit EventQueue(size_t capacity) : capacity_(capacity) {}

  bool Push(std::vector<Event>&& batch) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || size_ < capacity_; });
    if (closed_) return false;
    size_ += batch.size();
    batches_.push_back(std::move(batch));
    not_empty_.notify_one();
    return true;
  }

  // Moves up to roughly `max` events into `out` (whole batches). Returns false when the
  // queue is closed and empty.
  bool Pop(std::vector<Event>& out, size_t max) {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !batches_.empty(); });
    if (batches_.empty()) return false;
    while (!batches_.empty() && (out.empty() || out.size() + batches_.front().size() <= max)) {
      auto& front = batches_.front();
      size_ -= front.size();
      if (out.empty()) {
        out = std::move(front);
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
  std::deque<std::vector<Event>> batches_;  // guarded by mu_
  size_t size_ = 0;                         // guarded by mu_
  bool closed_ = false;                     // guarded by mu_
};

}  // namespace fathom::internal
