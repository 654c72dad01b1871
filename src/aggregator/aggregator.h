// aggregator.h — `fathom aggregate`: receives event batches from collectors, commits them into
// one store with global ids, and serves live and replayed events to consumers (docs/protocol.md).
//
// One ROUTER socket (CURVE server unless insecure) serves collectors and consumers. Threads:
// the network thread (Run()'s caller) owns the socket, the consumer sessions and the ring of
// recent events; a commit thread owns the store's writer connection and merges the batches of
// all collectors into one transaction; a replay thread owns a read-only connection and reads
// bounded slices for consumers behind the ring; the ZAP handler thread admits client keys.
// Batches are acknowledged only after their commit; when commits fall behind, the network
// thread stops reading until the queue drains (back-pressure on collectors, never loss).
// Create() opens the stores and binds the socket; Run() serves until Stop() (any thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "fathom/status.h"
#include "fathom/store.h"
#include "security/client_list.h"
#include "security/curve_keys.h"
#include "wire/wire_messages.h"

namespace fathom::aggregator {

struct AggregatorOptions {
  std::string listen;                  // ZeroMQ endpoint; "tcp://127.0.0.1:*" picks a free port
  StoreOptions store;
  bool insecure = false;               // plain ZeroMQ: every client has every role and "/"
  security::KeyPair server_keys;       // CURVE server keys (required unless insecure)
  security::ClientList clients;        // admitted client keys, roles and path grants
  bool purge_acknowledged = false;     // remove what every durable consumer acknowledged
  size_t ring_capacity = 1u << 18;     // recent committed events served from memory
  size_t commit_queue_events = 1u << 18;  // events awaiting commit before reading pauses
  std::chrono::milliseconds heartbeat_interval{1000};
  std::chrono::milliseconds session_timeout{60'000};  // silent peers are forgotten
  std::chrono::seconds stats_interval{0};             // log the counters (0 = never)
  size_t max_frame_bytes = wire::kMaxFrameBytes;      // larger frames drop the connection
};

// A snapshot of the counters.
struct AggregatorStats {
  uint64_t events_received = 0;    // in batches accepted for commit (duplicates excluded)
  uint64_t events_committed = 0;
  uint64_t duplicate_events = 0;   // in batches already stored, acknowledged and dropped
  uint64_t events_sent = 0;        // to consumers, live and replayed
  uint64_t batches_committed = 0;
  uint64_t commits = 0;            // store transactions
  uint64_t commit_failures = 0;
  uint64_t commit_latency_us_last = 0;
  uint64_t commit_latency_us_max = 0;
  uint64_t commit_latency_us_mean = 0;
  uint64_t collectors = 0;         // connected collectors
  uint64_t consumers = 0;          // subscribed consumers
  uint64_t refused_clients = 0;    // handshakes refused by the ZAP handler
  uint64_t errors_sent = 0;
  uint64_t last_id = 0;
  uint64_t queued_events = 0;      // received, not committed yet (the commit queue's depth)
  uint64_t first_id = 0;           // the oldest id the store holds (0: empty); the Stats
                                   // message only, read from the store when it is asked for

  std::string ToJson() const;
};

class Aggregator {
 public:
  static Result<std::unique_ptr<Aggregator>> Create(AggregatorOptions options);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // The endpoint actually bound (the port resolved when "*" was asked for).
  const std::string& endpoint() const;
  // Serves until Stop(); then commits what is queued and returns. Call once.
  Status Run();
  // Makes Run() return; any thread, any time (also before Run()).
  void Stop();
  AggregatorStats Stats() const;
  // Admits by `clients` from now on (any thread): new handshakes and every later message are
  // checked against it; consumers whose key stays admitted to subscribe keep their connection
  // and get its grants, the others are sent NotPermitted. Ignored when insecure.
  void ReplaceClients(security::ClientList clients);

  struct State;

 private:
  explicit Aggregator(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace fathom::aggregator
