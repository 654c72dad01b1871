// event_ring.h — the most recent committed events, by id, for live delivery from memory.
//
// Holds up to `capacity` events with contiguous ids; appending beyond it drops the oldest
// (consumers behind the ring are served from the store instead). Network thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "fathom/event.h"

namespace fathom::aggregator {

class EventRing {
 public:
  EventRing(size_t capacity, uint64_t last_id)
      : capacity_(capacity == 0 ? 1 : capacity), first_id_(last_id + 1) {}

  // `events` carry contiguous ids continuing last_id().
  void Append(std::vector<Event>&& events) {
    for (auto& e : events) {
      if (events_.empty()) first_id_ = e.id;
      events_.push_back(std::move(e));
    }
    while (events_.size() > capacity_) {
      events_.pop_front();
      ++first_id_;
    }
  }
  // The oldest id held (last_id() + 1 when empty).
  uint64_t first_id() const { return first_id_; }
  // The newest committed id.
  uint64_t last_id() const { return first_id_ + events_.size() - 1; }
  bool Holds(uint64_t id) const { return id >= first_id_ && id <= last_id(); }
  const Event& At(uint64_t id) const { return events_[id - first_id_]; }

 private:
  size_t capacity_;
  std::deque<Event> events_;
  uint64_t first_id_;
};

}  // namespace fathom::aggregator
