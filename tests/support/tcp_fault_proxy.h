// tcp_fault_proxy.h — a loopback TCP proxy that cuts a connection at a chosen moment, for tests
// of what a client does when the network drops a reply (no real network fault can be made to
// happen at an exact protocol step otherwise; both ends are the real programs).
//
// Every connection accepted on port() is relayed to `target_port` on 127.0.0.1. When the
// client sends bytes containing the armed pattern (the first time after Arm()), the proxy
// forwards those bytes to the server and then closes both sides at once, so the request is
// carried out but its answer never reaches the client; for `refuse` after that, new
// connections are closed as soon as they are accepted (the network stays down), then relayed
// normally again. One relay thread; the destructor stops it and closes everything.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace fathom::testing {

class TcpFaultProxy {
 public:
  explicit TcpFaultProxy(uint16_t target_port);
  ~TcpFaultProxy();
  TcpFaultProxy(const TcpFaultProxy&) = delete;
  TcpFaultProxy& operator=(const TcpFaultProxy&) = delete;

  uint16_t port() const { return port_; }
  // "nats://127.0.0.1:PORT" of the proxy.
  std::string nats_url() const { return "nats://127.0.0.1:" + std::to_string(port_); }
  // Cuts the first connection whose client sends `pattern` from now on (once), then refuses
  // connections for `refuse`.
  void Arm(std::string pattern, std::chrono::milliseconds refuse = std::chrono::milliseconds(0));
  // How many connections were cut so far.
  int cuts() const { return cuts_.load(); }

 private:
  void Relay();

  uint16_t target_port_;
  uint16_t port_ = 0;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  std::mutex mu_;
  std::string pattern_;  // guarded by mu_; empty: not armed
  std::chrono::milliseconds refuse_{0};                  // guarded by mu_
  std::chrono::steady_clock::time_point refuse_until_;  // relay thread only
  std::atomic<int> cuts_{0};
  std::thread thread_;
};

}  // namespace fathom::testing
