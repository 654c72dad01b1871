// event_ring.h — the most recent committed events, by id, for live delivery from memory, kept
// as the chunks they were stored as (so that messages pass those on as they are).
//
// Holds whole chunks with contiguous ids; appending drops the oldest chunks while the others
// still hold `capacity` events or more (consumers behind the ring are served from the store
// instead). A chunk's events are decoded only when a message needs them one by one (a
// filtering consumer, a message starting inside the chunk), then kept with the chunk. Network
// thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "fathom/event.h"
#include "fathom/store.h"

namespace fathom::aggregator {

class EventRing {
 public:
  struct Chunk {
    uint64_t first_id = 0;
    EncodedChunk chunk;
    std::unique_ptr<std::vector<Event>> events;  // decoded, once needed

    uint64_t last_id() const { return first_id + chunk.count - 1; }
  };

  EventRing(size_t capacity, uint64_t last_id);

  // `chunks` hold the events from `first_id` (== last_id() + 1) on, in order.
  void Append(uint64_t first_id, std::vector<EncodedChunk>&& chunks);
  // The oldest id held (last_id() + 1 when empty).
  uint64_t first_id() const { return first_id_; }
  // The newest committed id.
  uint64_t last_id() const { return first_id_ + held_ - 1; }
  bool Holds(uint64_t id) const { return id >= first_id_ && id <= last_id(); }
  // The index of the chunk holding `id`, which the ring holds; indexes stay valid until the
  // next Append().
  size_t IndexOf(uint64_t id) const;
  size_t chunks() const { return chunks_.size(); }
  const Chunk& At(size_t index) const { return chunks_[index]; }
  // The events of chunk `index` (ids set), decoded on first use; nullptr when the chunk does
  // not decode (never for the checked chunks a commit hands over).
  const std::vector<Event>* EventsOf(size_t index);

 private:
  size_t capacity_;
  std::deque<Chunk> chunks_;  // by first_id, contiguous
  uint64_t first_id_;
  uint64_t held_ = 0;  // events in chunks_
};

}  // namespace fathom::aggregator
