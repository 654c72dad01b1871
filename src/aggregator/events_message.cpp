// events_message.cpp — Events messages from chunks: whole chunks passed on, the rest encoded.
#include "aggregator/events_message.h"

#include <algorithm>
#include <span>
#include <vector>

#include "wire/wire_messages.h"

namespace fathom::aggregator {
namespace {

size_t EventBytes(const Event& e) {
  return e.path.size() + e.root.size() + e.source.size() + e.attrs.size() + 32;
}

}  // namespace

std::optional<EventsMessage> BuildEventsMessage(EventRing& chunks, uint64_t after_id, uint64_t end,
                                                size_t max_events, const ConsumerFilter& filter) {
  const bool everything = filter.MatchesEverything();
  std::vector<const Event*> events;  // those encoded for this message
  events.reserve(max_events);
  struct Run {
    size_t begin, count;             // of `events`, when chunk is null
    const EventRing::Chunk* chunk;   // passed on whole
  };
  std::vector<Run> runs;
  size_t count = 0, bytes = 0;
  uint64_t through = after_id, last_event = 0;
  for (size_t index = chunks.IndexOf(after_id + 1);
       through < end && count < max_events && bytes < kMaxBytesPerMessage; ++index) {
    const EventRing::Chunk& c = chunks.At(index);
    const uint64_t id = through + 1;
    const bool whole = id == c.first_id && c.last_id() <= end && count + c.chunk.count <= max_events;
    if (!whole && id == c.first_id && count > 0) break;  // the next message starts with it whole
    const std::vector<Event>* decoded = nullptr;
    if (!(everything && whole)) {
      decoded = chunks.EventsOf(index);
      if (decoded == nullptr) return std::nullopt;
    }
    const bool all_selected =
        whole && (decoded == nullptr ||
                  std::all_of(decoded->begin(), decoded->end(),
                              [&](const Event& e) { return filter.Matches(e); }));
    if (all_selected) {
      runs.push_back({0, c.chunk.count, &c});
      count += c.chunk.count;
      bytes += c.chunk.data->size();
      through = last_event = c.last_id();
      continue;
    }
    const uint64_t last = std::min(c.last_id(), end);
    for (uint64_t next = id; next <= last && count < max_events && bytes < kMaxBytesPerMessage;
         ++next) {
      const Event& e = (*decoded)[next - c.first_id];
      through = next;
      if (!filter.Matches(e)) continue;
      if (runs.empty() || runs.back().chunk != nullptr) runs.push_back({events.size(), 0, nullptr});
      events.push_back(&e);
      ++runs.back().count;
      ++count;
      bytes += EventBytes(e);
      last_event = next;
    }
  }
  std::vector<wire::EventRun> parts;
  parts.reserve(runs.size());
  for (const auto& r : runs) {
    if (r.chunk != nullptr) {
      parts.push_back({{}, *r.chunk->chunk.data, r.chunk->first_id, r.chunk->chunk.count});
    } else {
      parts.push_back({std::span<const Event* const>(events).subspan(r.begin, r.count), {}, 0, 0});
    }
  }
  return EventsMessage{
      std::make_shared<const std::string>(wire::EncodeEvents(after_id, through, parts)), through,
      last_event, static_cast<uint32_t>(count)};
}

}  // namespace fathom::aggregator
