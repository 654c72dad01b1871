// commit_queue.h — what the network thread hands the commit thread: collector requests (Hello
// and Batch, answered after the commits queued before them) and durable consumer positions.
//
// Push() never blocks: the network thread checks Full() and stops reading its socket while the
// queued batches hold `capacity` events or more, which pushes back on collectors through
// ZeroMQ and TCP. Pop() takes every item (up to about `max_events` events) or waits.
// Close() ends Pop() once the queue is empty. Any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "wire/wire_messages.h"

namespace fathom::aggregator {

struct HelloItem {
  std::string peer;  // ZeroMQ routing id
  std::string collector;
};
struct BatchItem {
  std::string peer;
  wire::Batch batch;                 // its events are in `chunks`
  std::vector<EncodedChunk> chunks;  // the batch's events as they came, checked
  size_t events = 0;                 // the chunks' events together
};
// Acknowledged ids of durable consumers to record (and purge through, when configured).
struct ConsumerPositionsItem {
  std::vector<std::pair<std::string, uint64_t>> positions;
};
using CommitItem = std::variant<HelloItem, BatchItem, ConsumerPositionsItem>;

class CommitQueue {
 public:
  explicit CommitQueue(size_t capacity) : capacity_(capacity) {}

  void Push(CommitItem item) {
    std::lock_guard lock(mu_);
    if (auto* b = std::get_if<BatchItem>(&item)) events_ += b->events;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
  }
  bool Full() const {
    std::lock_guard lock(mu_);
    return events_ >= capacity_;
  }
  // Moves queued items into `out` (at least one, then while under `max_events`). False once
  // closed and empty.
  bool Pop(std::vector<CommitItem>& out, size_t max_events) {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    size_t taken = 0;
    while (!items_.empty() && (out.empty() || taken < max_events)) {
      if (auto* b = std::get_if<BatchItem>(&items_.front())) {
        taken += b->events;
        events_ -= b->events;
      }
      out.push_back(std::move(items_.front()));
      items_.pop_front();
    }
    return !out.empty();
  }
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable not_empty_;
  std::deque<CommitItem> items_;  // guarded by mu_
  size_t events_ = 0;             // guarded by mu_: events in queued batches
  bool closed_ = false;           // guarded by mu_
};

}  // namespace fathom::aggregator
