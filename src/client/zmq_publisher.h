// zmq_publisher.h — the EventSink of `fathom collect`: batches sent to a `fathom aggregate`
// over ZeroMQ, each acknowledged after the aggregator's durable commit (docs/protocol.md).
//
// Hello/Welcome gives the collector's stored position; Commit() sends Batch{from, to} and
// waits for its BatchAck, writing the assigned ids into the events. Kernel sources have no
// positions: batches are numbered by event count from the Welcome position. Without an
// acknowledgement in time the publisher reconnects, asks for the stored position again and
// resends unless the batch is already held; while the aggregator is unreachable or cannot
// commit, it retries with exponential backoff forever, logging each change of state once.
// It fails on a position gap (the collector must restart from the stored position), on a
// refusal, or after Stop(). One thread uses it; Stop() may come from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "client/aggregator_link.h"
#include "client/retry_backoff.h"
#include "fathom/client.h"
#include "fathom/sink.h"

namespace fathom::client {

class ZmqPublisher final : public EventSink {
 public:
  static Result<std::unique_ptr<EventSink>> Open(const PublisherOptions& options);

  Result<uint64_t> Position(std::string_view source) override;
  Status Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) override;
  void Stop() override { stop_.store(true); }

 private:
  enum class Health { kHealthy, kUnreachable, kUnavailable };

  explicit ZmqPublisher(const PublisherOptions& options) : options_(options), backoff_(options.max_backoff) {}
  // Hello until a Welcome comes (retrying forever); returns the stored position.
  Result<uint64_t> Welcome();
  // One Hello; nullopt when no Welcome came within the ack timeout.
  Result<std::optional<uint64_t>> TryWelcome();
  Status SendUntilAcknowledged(std::vector<Event>& batch, uint64_t from, uint64_t to);
  // Waits after a failed attempt, then reconnects.
  Status Retry(Health health, std::string_view detail, bool reconnect);
  void SetHealth(Health health, std::string_view detail);
  Status Refused(const wire::Error& error, uint64_t from, uint64_t to) const;

  PublisherOptions options_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<AggregatorLink> link_;
  RetryBackoff backoff_;
  bool welcomed_ = false;
  uint64_t committed_ = 0;  // the position the aggregator holds for this collector
  Health health_ = Health::kHealthy;
};

}  // namespace fathom::client
