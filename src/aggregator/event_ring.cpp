// event_ring.cpp — the ring of recent chunks, and their events decoded on demand.
#include "aggregator/event_ring.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "store/event_chunk.h"

namespace fathom::aggregator {

EventRing::EventRing(size_t capacity, uint64_t last_id)
    : capacity_(capacity == 0 ? 1 : capacity), first_id_(last_id + 1) {}

void EventRing::Append(uint64_t first_id, std::vector<EncodedChunk>&& chunks) {
  if (chunks_.empty()) first_id_ = first_id;
  for (auto& c : chunks) {
    held_ += c.count;
    chunks_.push_back({first_id, std::move(c), nullptr});
    first_id += chunks_.back().chunk.count;
  }
  while (!chunks_.empty() && held_ - chunks_.front().chunk.count >= capacity_) {
    held_ -= chunks_.front().chunk.count;
    first_id_ += chunks_.front().chunk.count;
    chunks_.pop_front();
  }
}

size_t EventRing::IndexOf(uint64_t id) const {
  auto it = std::upper_bound(chunks_.begin(), chunks_.end(), id,
                             [](uint64_t v, const Chunk& c) { return v < c.first_id; });
  return static_cast<size_t>(it - chunks_.begin()) - 1;
}

const std::vector<Event>* EventRing::EventsOf(size_t index) {
  Chunk& c = chunks_[index];
  if (c.events) return c.events.get();
  auto events = std::make_unique<std::vector<Event>>();
  events->reserve(c.chunk.count);
  Status status = store::DecodeChunk(*c.chunk.data, c.first_id, [&](const Event& e) {
    events->push_back(e);
    return true;
  });
  if (!status.ok() || events->size() != c.chunk.count) {
    spdlog::error("a committed chunk of ids {}..{} does not decode: {}", c.first_id, c.last_id(),
                  status.ok() ? "it holds another number of events" : status.message());
    return nullptr;
  }
  c.events = std::move(events);
  return c.events.get();
}

}  // namespace fathom::aggregator
