// aggregator_harness.h — an Aggregator on a random loopback port over a real SQLite file, and
// raw DEALER clients that speak the wire protocol, for the aggregator's tests.
#pragma once

#include <gtest/gtest.h>
#include <zmq.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "aggregator/aggregator.h"
#include "security/client_list.h"
#include "security/curve_keys.h"
#include "support/temp_dir.h"
#include "wire/wire_messages.h"

namespace fathom::testing {

using namespace std::chrono_literals;

// Key pairs of a test's parties and the client list that admits them.
struct TestKeys {
  security::KeyPair server, collector, alice, bob, reader, stranger;

  TestKeys();
  // collector: collect "/"; alice: subscribe /data/a; bob: subscribe /data/b;
  // reader: subscribe "/"; stranger: not listed.
  security::ClientList Clients() const;
};

// Runs an Aggregator on its own thread until destroyed (or Stop()).
class TestAggregator {
 public:
  TestAggregator(aggregator::AggregatorOptions options);
  ~TestAggregator();
  void Stop();
  const std::string& endpoint() const { return endpoint_; }
  aggregator::Aggregator& get() { return *aggregator_; }

 private:
  std::unique_ptr<aggregator::Aggregator> aggregator_;
  std::string endpoint_;
  std::thread thread_;
};

// Options for a secure aggregator on a free loopback port storing into `store_path`.
aggregator::AggregatorOptions SecureOptions(const TestKeys& keys, const std::string& store_path,
                                            const std::string& listen = "tcp://127.0.0.1:*");

// A free loopback endpoint ("tcp://127.0.0.1:PORT"), picked by binding and releasing it, for
// an aggregator started as a separate process.
std::string FreeLoopbackEndpoint(const std::string& scratch_dir);

// A DEALER socket, CURVE client when keys are given.
class RawClient {
 public:
  RawClient(const std::string& endpoint, const security::KeyPair* keys,
            const std::string& server_public_key);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void Send(const wire::Message& m) { SendRaw(wire::Encode(m)); }
  void SendRaw(const std::string& frame);
  // One message of several frames (the protocol allows one).
  void SendFrames(const std::vector<std::string>& frames);
  // The next frame as it came, nullopt after `timeout`.
  std::optional<std::string> ReceiveFrame(std::chrono::milliseconds timeout = 5s);
  // The next message, nullopt after `timeout`; a frame that fails to decode fails the test.
  std::optional<wire::Message> Receive(std::chrono::milliseconds timeout = 5s);
  // The next message other than a Heartbeat.
  std::optional<wire::Message> ReceiveSkippingHeartbeats(std::chrono::milliseconds timeout = 5s);

 private:
  void* context_;
  void* socket_;
};

Event MakeEvent(const std::string& path, uint32_t mask = kind::kCreate);
std::vector<Event> MakeEvents(const std::string& dir, size_t n, size_t start = 0);

// Sends Hello and returns the Welcome's position.
uint64_t Hello(RawClient& c, const std::string& collector);
// Sends a batch and returns the answer (a BatchAck or an Error).
wire::Message SendBatch(RawClient& c, const std::string& collector, uint64_t from, uint64_t to,
                        std::vector<Event> events);

// What a consumer received through `through`.
struct Delivery {
  std::vector<Event> events;
  uint64_t through = 0;
  bool contiguous = true;  // every Events began where the previous one ended
  std::optional<wire::Error> error;
};
// Receives Events starting after `start_after` until `through` is covered or `timeout`
// passes; with `ack`, acknowledges each Events message (credit `credit`).
Delivery ReceiveThrough(RawClient& c, uint64_t start_after, uint64_t through, bool ack,
                        uint32_t credit = 65536, std::chrono::milliseconds timeout = 10s);

}  // namespace fathom::testing
