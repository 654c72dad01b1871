// source_state.h — the numbers the overview, /metrics and /readyz read of each source: the
// store's ids, size and consumers, the aggregator's counters, the catalog's size, commits and
// how far its follower has applied the store. Each call reads through a handle of the context's pools. Any thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::web {

struct ServeContext;

struct StoreState {
  uint64_t first_id = 0;  // the retention floor: the oldest id held (0 when empty)
  uint64_t last_id = 0;
  int64_t bytes = 0;      // the file and its write-ahead log
  std::vector<std::pair<std::string, uint64_t>> consumers;  // durable names and their positions
};
Result<StoreState> ReadStoreState(ServeContext& ctx);

// The counters of the aggregator given to --from (its Stats message: docs/protocol.md), asked
// for at each call, within two seconds.
Result<nlohmann::json> ReadAggregatorState(ServeContext& ctx);

struct CatalogState {
  catalog::CatalogInfo info;
  uint64_t commits = 0;
  uint64_t last_applied = 0;             // by the follower named options.catalog_stream
  std::optional<uint64_t> lag_events;    // the store's last id minus last_applied
};
// `store_last_id`: the store's last id, when the server has a store.
Result<CatalogState> ReadCatalogState(ServeContext& ctx, std::optional<uint64_t> store_last_id);

}  // namespace fathom::web
