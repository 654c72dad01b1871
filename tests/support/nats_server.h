// nats_server.h — real nats-server processes for tests: one node, or a JetStream cluster whose
// nodes route to each other on loopback.
//
// Every node gets free loopback ports (client, monitoring, cluster; found again when another
// process took one before the node bound it) and its own store dir and log file inside a
// temp dir; the constructor returns once every node serves JetStream
// (/healthz answers 200) and throws std::runtime_error (with the logs) when that does not
// happen within 30 s. Nodes can be SIGKILLed and restarted on the same ports and store. The
// destructor kills every node and removes the temp dir. One thread per object.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace fathom::testing {

// Reserves `n` distinct free loopback ports (all sockets are held until every port is known;
// nothing listens on them afterwards).
std::vector<int> FreePorts(size_t n);

struct NatsServerOptions {
  int nodes = 1;             // 1: a lone server; more: a cluster of that many nodes
  int64_t max_payload = 0;   // bytes; 0 = the server's default (1 MB)
};

class NatsServers {
 public:
  explicit NatsServers(NatsServerOptions options = {});
  ~NatsServers();
  NatsServers(const NatsServers&) = delete;
  NatsServers& operator=(const NatsServers&) = delete;

  int size() const { return static_cast<int>(nodes_.size()); }
  // "nats://127.0.0.1:PORT" of node i, and that port.
  std::string url(int i) const;
  int port(int i) const { return nodes_[static_cast<size_t>(i)].client_port; }
  // Every node's URL joined by commas (a publisher's or subscriber's endpoint).
  std::string urls() const;
  // The node's server_name ("n0", "n1", ...), as JetStream reports stream leaders.
  std::string name(int i) const;
  // Index of the node called `server_name`, or -1.
  int IndexOf(const std::string& server_name) const;
  bool running(int i) const { return nodes_[static_cast<size_t>(i)].pid > 0; }

  // SIGKILLs node i and reaps it.
  void Kill(int i);
  // Starts node i again (same ports and store) and waits until it serves JetStream.
  void Restart(int i);
  // The node's log so far.
  std::string Log(int i) const;

 private:
  struct Node {
    std::string name;
    int client_port = 0;
    int http_port = 0;
    int cluster_port = 0;
    std::string config_path;
    std::string log_path;
    pid_t pid = -1;
  };
  void WriteConfig(size_t i);
  void Spawn(size_t i);
  void WaitReady(size_t i, std::chrono::steady_clock::time_point deadline);

  NatsServerOptions options_;
  TempDir dir_;
  std::vector<Node> nodes_;
};

}  // namespace fathom::testing
