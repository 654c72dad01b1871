// events_message.h — the next Events message for a consumer, built from consecutive chunks:
// the ring's for live delivery, a slice read from the store for replay.
//
// A whole chunk whose events the consumer's filter all selects is passed on as it is (without
// being decoded when the filter selects everything); the events of the others are decoded
// (EventRing::EventsOf) and the selected ones encoded into the message. A message does not
// start a whole chunk it cannot hold whole once it holds events: the next message starts with
// it. Pure function of its arguments; the thread that owns the chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "aggregator/consumer_filter.h"
#include "aggregator/event_ring.h"

namespace fathom::aggregator {

// An Events frame with what it covers: ids (after, through_id], `count` events, the newest
// `last_event_id` (0 without events).
struct EventsMessage {
  std::shared_ptr<const std::string> frame;
  uint64_t through_id = 0;
  uint64_t last_event_id = 0;
  uint32_t count = 0;
};

inline constexpr size_t kMaxBytesPerMessage = 4u << 20;

// The message covering ids after `after_id` through at most `end` (<= chunks.last_id(); the
// chunks hold after_id + 1), with at most `max_events` events and about kMaxBytesPerMessage
// bytes. nullopt when a chunk needed one by one does not decode.
std::optional<EventsMessage> BuildEventsMessage(EventRing& chunks, uint64_t after_id, uint64_t end,
                                                size_t max_events, const ConsumerFilter& filter);

}  // namespace fathom::aggregator
