// zap_handler.h — ZeroMQ's authentication (ZAP, RFC 27) for CURVE servers in one context.
//
// Binds inproc://zeromq.zap.01 in the given context and answers each handshake on its own
// thread: a CURVE client whose public key is in the current client list is accepted with the key (Z85)
// as its User-Id; any other client is refused and logged ("refused client key K from ADDRESS:
// not in the aggregator's client list", at most once per key every 10 s). Start it before
// binding the server socket. The handler must be destroyed before its context is terminated;
// the SharedClientList must outlive it; a list replaced meanwhile decides every later
// handshake. refused() may be read from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <cstdint>
#include <memory>
#include <thread>

#include "fathom/status.h"
#include "security/shared_client_list.h"
#include "security/zmq_handle.h"

namespace fathom::security {

class ZapHandler {
 public:
  static Result<std::unique_ptr<ZapHandler>> Start(void* context, const SharedClientList& clients);
  ~ZapHandler();
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  ZapHandler(ZmqSocket socket, const SharedClientList& clients);
  void Serve();
  void Answer();

  ZmqSocket socket_;
  const SharedClientList& clients_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> refused_{0};
  std::map<std::string, std::chrono::steady_clock::time_point> last_logged_;  // handler thread
  std::thread thread_;
};

}  // namespace fathom::security
