// aggregator_link.h — one DEALER connection to a `fathom aggregate`, as the publisher and the
// subscriber use it.
//
// Sends and receives whole wire messages (one frame each). A socket monitor tells the owner
// of every completed handshake (handshakes() grows on each connection and reconnection, so a
// restarted aggregator is noticed at once) and turns a refusal of the client's keys, and a
// security mechanism that differs from the aggregator's (CURVE on one side only), into an
// error saying what to change instead of endless retries. Reconnect() replaces the socket: the
// aggregator then sees a new peer. Every wait polls in short slices and ends with an error once
// `stop` is set. Owned by one publisher or subscriber and used from its one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "client/zmq_handles.h"
#include "fathom/client.h"
#include "fathom/status.h"
#include "wire/wire_messages.h"

namespace fathom::client {

struct LinkOptions {
  std::string endpoint;
  ClientKeys keys;
  // How long a closing socket may still deliver what it queued (a subscriber's last Ack).
  std::chrono::milliseconds linger{0};
};

class AggregatorLink {
 public:
  // Validates the keys and connects (connection completes in the background).
  static Result<std::unique_ptr<AggregatorLink>> Open(LinkOptions options,
                                                      const std::atomic<bool>& stop);

  const std::string& endpoint() const { return options_.endpoint; }
  // Closes the socket (dropping what it queued) and connects a fresh one.
  Status Reconnect();
  // Queues `message`, waiting up to `timeout` for a connection; false when none came.
  Result<bool> Send(const wire::Message& message, std::chrono::milliseconds timeout);
  Result<bool> SendFrame(std::string_view frame, std::chrono::milliseconds timeout);
  // The next message within `timeout`, or nullopt. Frames that do not decode are logged and
  // skipped. Fails on Stop and when the aggregator refuses the keys.
  Result<std::optional<wire::Message>> Receive(std::chrono::milliseconds timeout);
  // Handshakes completed over the link's whole life (across Reconnect()).
  uint64_t handshakes() const { return handshakes_; }

 private:
  AggregatorLink(LinkOptions options, const std::atomic<bool>& stop)
      : options_(std::move(options)), stop_(stop) {}
  Status Setup();
  // Reads pending monitor events; fails on a refusal.
  Status PumpMonitor();
  Status HandleMonitorEvent(uint16_t event, uint32_t value);
  // The error for a client without keys whose handshakes an aggregator with CURVE refuses.
  Status CurveRequired() const;
  // The error for a client with keys whose aggregator runs without CURVE.
  Status CurveNotUsed() const;
  // Waits until the socket is ready for `events` (or the monitor has news), at most `slice`.
  Status Poll(short events, std::chrono::milliseconds slice);

  LinkOptions options_;
  const std::atomic<bool>& stop_;
  ZmqContext context_;
  ZmqSocket socket_;
  ZmqSocket monitor_;
  uint64_t handshakes_ = 0;
  bool handshake_pending_ = false;  // connected, handshake not finished yet
  int failed_handshakes_ = 0;       // in a row
};

// The error every wait returns once Stop() was called.
Status StoppedError();
bool IsStoppedError(const Status& status);

}  // namespace fathom::client
