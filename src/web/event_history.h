// event_history.h — where the event search, an event by id and a stream that fell behind the
// tail read past events: the event store (--store, a handle of a pool per read) or, without
// one, the aggregator (--from), through one replay subscription per read that ends at the
// first event past the ids asked for (events are numbered without gaps but for those purged).
//
// Ownership: the ServeContext owns the one history. Threads: any; each read uses its own
// handle or subscription.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fathom/client.h"
#include "fathom/event.h"
#include "fathom/status.h"
#include "fathom/store.h"
#include "web/handle_pool.h"

namespace fathom::web {

class EventHistory {
 public:
  virtual ~EventHistory() = default;
  // The oldest id held (0: none) and the newest.
  virtual Result<IdRange> Held() = 0;
  // Calls `fn` with each event with an id in (since_id, through_id], in id order, until it
  // returns false. `prefix` ("" none) is a hint: events of other paths may be left out.
  virtual Status Replay(uint64_t since_id, uint64_t through_id, const std::string& prefix,
                        const std::function<bool(const Event&)>& fn) = 0;
};

// Reads through handles of `stores`, which outlives it.
std::unique_ptr<EventHistory> StoreHistory(HandlePool<EventStore>& stores);

// The aggregator's counters (its Stats message, docs/protocol.md) as a JSON object; an answer
// that is none is an error naming the aggregator.
Result<nlohmann::json> AggregatorCounters(const std::string& endpoint, const ClientKeys& keys,
                                          std::chrono::milliseconds timeout);

// Reads from the aggregator at `endpoint`; a read that gets nothing for `patience` (Held: 2 s at
// most) fails with an error naming the aggregator.
std::unique_ptr<EventHistory> AggregatorHistory(std::string endpoint, ClientKeys keys,
                                                std::chrono::milliseconds patience = std::chrono::seconds(10));

}  // namespace fathom::web
