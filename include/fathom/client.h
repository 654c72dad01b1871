// client.h — fathom::Client: the library side of the distributed monitor, used by the CLI
// (`fathom collect`, `fathom subscribe`) and by applications.
//
// Endpoints: "tcp://HOST:PORT" or "ipc:///path" reach a `fathom aggregate` over ZeroMQ with
// CURVE (docs/protocol.md); "nats://HOST:PORT[,nats://...]" reaches a NATS JetStream bus.
//
// Publishing: OpenPublisher() returns an EventSink (fathom/sink.h) for one collector. Commit()
// sends a batch and returns once the far end has durably committed it (an acknowledgement),
// retrying with backoff while the far end is unreachable or refuses for a temporary reason
// (its disk is full); it fails only on a permanent refusal (not permitted, protocol version)
// or after Stop(). Kernel sources have no positions: the publisher numbers their batches
// itself so that a retransmitted batch is recognised and dropped.
//
// Subscribing: Subscriber delivers every event matching its filter exactly once, in id order:
// live events, and by replay whatever it missed (a gap, a reconnection, a restart of either
// side). A durable name makes the far end keep the acknowledged id across restarts.
// A Subscriber is used from one thread; Stop() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fathom/event.h"
#include "fathom/sink.h"
#include "fathom/status.h"

namespace fathom {

// CURVE keys as 40-character Z85 text. All empty: plain ZeroMQ without CURVE (only accepted
// by an aggregator started with --insecure). Unused for nats:// endpoints.
struct ClientKeys {
  std::string public_key;
  std::string secret_key;
  std::string server_public_key;
};

// NATS JetStream settings (nats:// endpoints only). The stream is created when absent.
struct BusOptions {
  std::string stream = "FATHOM";     // stream name; subjects "<subject_prefix>.<collector>"
  std::string subject_prefix = "fathom.events";
  int replicas = 1;                  // stream replicas (3 on a 3-node cluster)
  std::chrono::seconds max_age{0};   // stream MaxAge (0 = unlimited)
  int64_t max_bytes = 0;             // stream MaxBytes (0 = unlimited)
};

struct PublisherOptions {
  std::string endpoint;
  std::string collector;        // the collector's name; positions are kept per name
  ClientKeys keys;
  std::chrono::milliseconds ack_timeout{5000};  // resend when no acknowledgement in this time
  std::chrono::milliseconds max_backoff{2000};  // longest wait between retries
  BusOptions bus;
};

Result<std::unique_ptr<EventSink>> OpenPublisher(const PublisherOptions& options);

struct SubscribeOptions {
  std::string endpoint;
  std::optional<uint64_t> since;  // deliver ids > since; absent: the durable name's
                                  // acknowledged id (every event held for a name the far
                                  // end does not know), or (no name) live events only
  std::string name;               // durable consumer name ("" = not durable)
  std::string path_prefix;        // only this path and (recursive) what lies under it
  bool recursive = true;          // false: the prefix itself and its direct entries only
  uint32_t kinds = kind::kAll;    // kinds to deliver (OVERFLOW always)
  ClientKeys keys;
  uint32_t credit = 65536;        // events the far end may send ahead of acknowledgements
  BusOptions bus;
};

class Subscriber {
 public:
  virtual ~Subscriber() = default;
  static Result<std::unique_ptr<Subscriber>> Open(const SubscribeOptions& options);

  // Appends the next events (ids increasing, none skipped among those matching) to `out`,
  // waiting at most `timeout` for the first. Fails when ids were purged before they could be
  // delivered (the error names them), on a refusal, or after Stop().
  virtual Status Next(std::vector<Event>& out, std::chrono::milliseconds timeout) = 0;
  // Records that every event through `id` is processed (durable names: kept by the far end).
  virtual Status Acknowledge(uint64_t id) = 0;
  // True once the far end confirmed the subscription (it was reachable at least once). Open()
  // does not wait for it: while the far end is unreachable, Next() retries within its timeout.
  virtual bool answered() const = 0;
  // Every event with an id up to this one that matches the subscription has been delivered by
  // Next(), or was not the subscriber's to see: a reader of a range of ids knows when it is
  // through, even when no event of the range matched. Called from the thread that calls Next().
  virtual uint64_t covered_through() const = 0;
  virtual void Stop() = 0;
};

// The counters of the aggregator at `endpoint` (tcp:// or ipc://), as the JSON object its Stats
// message carries (docs/protocol.md): events received, committed and sent, the commit queue's
// depth, commit latencies, the oldest and newest ids held. Any admitted client may ask. Fails
// when no answer comes within `timeout` (the error says to check the address), on a refusal
// of the keys, and for nats:// endpoints (a bus keeps no such counters). Any thread.
Result<std::string> RequestAggregatorStats(const std::string& endpoint, const ClientKeys& keys,
                                           std::chrono::milliseconds timeout);

}  // namespace fathom
