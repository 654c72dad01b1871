// zmq_subscriber.h — a consumer of a `fathom aggregate` over ZeroMQ (docs/protocol.md).
//
// Subscribe → Subscribed, then Events messages whose id ranges must follow each other
// (after_id == the previous through_id). On a gap, an UnknownSession error (the aggregator
// restarted), a reconnection, or more than 3 s without any message (heartbeats included) it
// subscribes again from the last id it received, so every matching id arrives once, in order,
// across restarts of either side. Acknowledge() is batched: one Ack per 100 ms or per quarter
// of the credit, and a last one when the subscriber is destroyed. One thread uses it; Stop()
// may come from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "client/aggregator_link.h"
#include "client/retry_backoff.h"
#include "fathom/client.h"

namespace fathom::client {

class ZmqSubscriber final : public Subscriber {
 public:
  static Result<std::unique_ptr<Subscriber>> Open(const SubscribeOptions& options);
  ~ZmqSubscriber() override;

  Status Next(std::vector<Event>& out, std::chrono::milliseconds timeout) override;
  Status Acknowledge(uint64_t id) override;
  bool answered() const override { return answered_; }
  uint64_t covered_through() const override { return has_position_ ? last_id_ : 0; }
  void Stop() override { stop_.store(true); }

 private:
  using Clock = std::chrono::steady_clock;

  explicit ZmqSubscriber(const SubscribeOptions& options) : options_(options), backoff_(std::chrono::seconds(2)) {}
  // Asks for delivery after the last id received (or as the options say, before the first).
  void Resubscribe(const char* reason);
  // Sends the Subscribe when a connection is there; notes how long none was.
  Status TrySendSubscribe();
  Status FlushAck(bool force);
  // Handles one message, appending the events it brings to `out`.
  Status Handle(wire::Message& message, std::vector<Event>& out);
  // Resubscribes after 3 s without a message; notes an aggregator that does not answer.
  void CheckSilence();

  SubscribeOptions options_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<AggregatorLink> link_;
  RetryBackoff backoff_;

  bool has_position_ = false;  // last_id_ is known (given as since, or from Subscribed)
  uint64_t last_id_ = 0;       // every matching event through it has been received
  uint64_t delivered_ = 0;     // highest id handed to the application
  bool subscribe_pending_ = true;   // a Subscribe must be sent
  bool subscribed_ = false;         // the Subscribed answer to the latest Subscribe came
  Clock::time_point wanted_since_ = Clock::now();  // when the latest (re)subscription began
  Clock::time_point sent_at_{};                     // when the latest Subscribe went out
  Clock::time_point last_message_{};                // latest message of the current subscription
  uint64_t handshakes_seen_ = 0;
  bool unreachable_logged_ = false;
  bool answered_ = false;  // a Subscribed came at least once

  uint64_t acked_ = 0;           // highest id the application acknowledged
  uint64_t ack_sent_ = 0;        // highest id sent in an Ack
  uint64_t unacked_events_ = 0;  // events received since the last Ack went out
  Clock::time_point ack_sent_at_ = Clock::now();
};

}  // namespace fathom::client
