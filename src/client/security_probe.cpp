#include "client/security_probe.h"

#include <atomic>
#include <cstring>

namespace fathom::client {

bool AcceptsPlainZeroMq(const ZmqContext& context, const std::string& endpoint,
                        std::chrono::milliseconds timeout) {
  static std::atomic<uint64_t> counter{0};
  const std::string monitor_endpoint =
      "inproc://fathom-probe-monitor-" + std::to_string(counter.fetch_add(1));
  auto socket = ZmqSocket::Create(context, ZMQ_DEALER);
  if (!socket.ok() || !socket->SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER").ok()) return false;
  if (zmq_socket_monitor(socket->get(), monitor_endpoint.c_str(),
                         ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                             ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) != 0) {
    return false;
  }
  auto monitor = ZmqSocket::Create(context, ZMQ_PAIR);
  if (!monitor.ok() || !monitor->SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER").ok() ||
      !monitor->Connect(monitor_endpoint).ok() || !socket->Connect(endpoint).ok()) {
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string event;
  while (std::chrono::steady_clock::now() < deadline) {
    zmq_pollitem_t item{monitor->get(), 0, ZMQ_POLLIN, 0};
    zmq_poll(&item, 1, 50);
    auto got = monitor->TryReceive(event);
    if (!got.ok()) return false;
    if (!*got || event.size() < 6) continue;
    uint16_t id = 0;
    std::memcpy(&id, event.data(), sizeof id);
    if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) return true;
    if (id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) return false;  // it wants a mechanism
  }
  return false;
}

}  // namespace fathom::client
