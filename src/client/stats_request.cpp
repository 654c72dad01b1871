// stats_request.cpp — RequestAggregatorStats: one StatsRequest on a link of its own.
#include <atomic>

#include "bus/nats_bus.h"
#include "client/aggregator_link.h"
#include "fathom/client.h"

namespace fathom {

Result<std::string> RequestAggregatorStats(const std::string& endpoint, const ClientKeys& keys,
                                           std::chrono::milliseconds timeout) {
  if (bus::IsNatsEndpoint(endpoint)) {
    return Status::Error(endpoint + " is a NATS bus: only an aggregator (tcp:// or ipc://) answers for its counters");
  }
  const std::atomic<bool> never{false};
  FATHOM_ASSIGN_OR_RETURN(auto link, client::AggregatorLink::Open({endpoint, keys, {}}, never));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
  };
  FATHOM_ASSIGN_OR_RETURN(bool sent, link->Send(wire::StatsRequest{}, left()));
  while (sent) {
    FATHOM_ASSIGN_OR_RETURN(auto message, link->Receive(left()));
    if (!message) break;
    if (auto* stats = std::get_if<wire::Stats>(&*message)) return stats->json;
    if (auto* error = std::get_if<wire::Error>(&*message)) {
      return Status::Error("the aggregator at " + endpoint + " refused the counters: " + error->message);
    }
  }
  return Status::Error("the aggregator at " + endpoint + " did not answer within " + std::to_string(timeout.count()) +
                       " ms: check the address and that it is running");
}

}  // namespace fathom
