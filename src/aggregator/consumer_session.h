// consumer_session.h — one subscribed consumer as the network thread sees it: its filter, its
// cursor (every id through it has been covered by Events sent), its acknowledged id and
// credit, and the Events frame that waits when the peer's queue was full. Network thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "aggregator/consumer_filter.h"
#include "aggregator/events_message.h"

namespace fathom::aggregator {

struct ConsumerSession {
  using Clock = std::chrono::steady_clock;

  uint64_t number = 0;      // unique per session (replay answers name it)
  std::string peer;         // ZeroMQ routing id
  std::string name;         // durable name, "" for none
  std::string client_key;   // the client's public key (Z85; "" when insecure)
  ConsumerFilter filter;
  uint64_t cursor = 0;      // through_id of the last Events (or start_after)
  uint64_t acked = 0;
  uint32_t credit = 0;
  bool replaying = false;   // a replay request is outstanding
  bool gone = false;        // the peer disconnected: the session ends
  Clock::time_point last_sent{};

  // An Events frame the peer could not take yet, with what it covers. Shared with other
  // sessions that were due the same message.
  using Waiting = EventsMessage;
  std::optional<Waiting> waiting;
  // Messages a replay slice made beyond the first, each continuing the one before: sent next.
  std::deque<Waiting> replayed;

  // Matching events sent beyond `acked`: (last event id of a message, its event count).
  std::deque<std::pair<uint64_t, uint32_t>> in_flight;
  uint64_t unacked = 0;

  uint64_t Available() const { return credit > unacked ? credit - unacked : 0; }
  void Sent(uint64_t through_id, uint64_t last_event_id, uint32_t count) {
    cursor = through_id;
    if (count > 0) {
      in_flight.emplace_back(last_event_id, count);
      unacked += count;
    }
  }
  void Acknowledge(uint64_t id, uint32_t new_credit) {
    if (id > cursor) id = cursor;
    if (id > acked) acked = id;
    while (!in_flight.empty() && in_flight.front().first <= acked) {
      unacked -= in_flight.front().second;
      in_flight.pop_front();
    }
    credit = new_credit;
  }
};

}  // namespace fathom::aggregator
