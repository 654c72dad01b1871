// event_ring.h — the most recent committed events, by id, for live delivery from memory, with
// the chunks they were stored as (so that messages can pass those on instead of encoding).
//
// Holds up to `capacity` events with contiguous ids; appending beyond it drops the oldest
// (consumers behind the ring are served from the store instead), and the chunks that then
// hold no event of the ring. Network thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "fathom/event.h"
#include "fathom/store.h"

namespace fathom::aggregator {

class EventRing {
 public:
  struct Chunk {
    uint64_t first_id = 0;
    EncodedChunk chunk;
  };

  EventRing(size_t capacity, uint64_t last_id)
      : capacity_(capacity == 0 ? 1 : capacity), first_id_(last_id + 1) {}

  // `events` carry contiguous ids continuing last_id(); `chunks` hold them in order (or are
  // empty: then no chunk covers them).
  void Append(std::vector<Event>&& events, std::vector<EncodedChunk>&& chunks) {
    uint64_t id = events.empty() ? 0 : events.front().id;
    for (auto& c : chunks) {
      chunks_.push_back({id, std::move(c)});
      id += chunks_.back().chunk.count;
    }
    for (auto& e : events) {
      if (events_.empty()) first_id_ = e.id;
      events_.push_back(std::move(e));
    }
    while (events_.size() > capacity_) {
      events_.pop_front();
      ++first_id_;
    }
    while (!chunks_.empty() && chunks_.front().first_id < first_id_) chunks_.pop_front();
  }
  // The oldest id held (last_id() + 1 when empty).
  uint64_t first_id() const { return first_id_; }
  // The newest committed id.
  uint64_t last_id() const { return first_id_ + events_.size() - 1; }
  bool Holds(uint64_t id) const { return id >= first_id_ && id <= last_id(); }
  const Event& At(uint64_t id) const { return events_[id - first_id_]; }
  // The first chunk starting at id `id` or after it, nullptr when none does.
  const Chunk* NextChunk(uint64_t id) const {
    auto it = std::lower_bound(chunks_.begin(), chunks_.end(), id,
                               [](const Chunk& c, uint64_t v) { return c.first_id < v; });
    return it != chunks_.end() ? &*it : nullptr;
  }

 private:
  size_t capacity_;
  std::deque<Event> events_;
  std::deque<Chunk> chunks_;  // by first_id; each wholly within the ring
  uint64_t first_id_;
};

}  // namespace fathom::aggregator
