// aggregator_stats.cpp — the counters as one JSON object (the Stats message, the stats log).
#include <nlohmann/json.hpp>

#include "aggregator/aggregator.h"

namespace fathom::aggregator {

std::string AggregatorStats::ToJson() const {
  nlohmann::json j = {
      {"events_received", events_received},
      {"events_committed", events_committed},
      {"duplicate_events", duplicate_events},
      {"events_sent", events_sent},
      {"batches_committed", batches_committed},
      {"commits", commits},
      {"commit_failures", commit_failures},
      {"commit_latency_us_last", commit_latency_us_last},
      {"commit_latency_us_max", commit_latency_us_max},
      {"commit_latency_us_mean", commit_latency_us_mean},
      {"collectors", collectors},
      {"consumers", consumers},
      {"refused_clients", refused_clients},
      {"errors_sent", errors_sent},
      {"last_id", last_id},
      {"queued_events", queued_events},
      {"first_id", first_id},
  };
  return j.dump();
}

}  // namespace fathom::aggregator
