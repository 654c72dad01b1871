// zap_handler.cpp — answers ZAP requests from the client list.
#include "security/zap_handler.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/thread_name.h"

namespace fathom::security {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr auto kLogEvery = std::chrono::seconds(10);
constexpr size_t kCurveKeyBytes = 32;

// Reads the frames of one request; false when the socket has nothing (or failed).
bool ReceiveAll(void* socket, std::vector<std::string>& frames) {
  frames.clear();
  for (;;) {
    ZmqFrame frame;
    if (zmq_msg_recv(frame.get(), socket, frames.empty() ? ZMQ_DONTWAIT : 0) < 0) return false;
    frames.emplace_back(frame.view());
    if (!frame.more()) return true;
  }
}

void Reply(void* socket, const std::string& request_id, const char* code, const char* text,
           const std::string& user_id) {
  const std::string frames[] = {"1.0", request_id, code, text, user_id, ""};
  for (size_t i = 0; i < std::size(frames); ++i) {
    const int flags = i + 1 < std::size(frames) ? ZMQ_SNDMORE : 0;
    zmq_send(socket, frames[i].data(), frames[i].size(), flags);
  }
}

}  // namespace

Result<std::unique_ptr<ZapHandler>> ZapHandler::Start(void* context, const SharedClientList& clients) {
  FATHOM_ASSIGN_OR_RETURN(ZmqSocket socket,
                          ZmqSocket::Open(context, ZMQ_REP, "authentication (ZAP)"));
  if (zmq_bind(socket.get(), "inproc://zeromq.zap.01") != 0) {
    return ZmqError("binding the authentication handler inproc://zeromq.zap.01");
  }
  return std::unique_ptr<ZapHandler>(new ZapHandler(std::move(socket), clients));
}

ZapHandler::ZapHandler(ZmqSocket socket, const SharedClientList& clients)
    : socket_(std::move(socket)), clients_(clients), thread_([this] {
        NameThisThread("zap");
        Serve();
      }) {}

ZapHandler::~ZapHandler() {
  stop_ = true;
  thread_.join();
  socket_.Close();
}

void ZapHandler::Serve() {
  while (!stop_.load()) {
    zmq_pollitem_t item{socket_.get(), 0, ZMQ_POLLIN, 0};
    const int n = zmq_poll(&item, 1, static_cast<long>(kPollInterval.count()));
    if (n < 0) {
      if (zmq_errno() == ETERM) return;
      continue;
    }
    if (n > 0) Answer();
  }
}

void ZapHandler::Answer() {
  std::vector<std::string> f;
  if (!ReceiveAll(socket_.get(), f)) return;
  // version, request id, domain, address, routing id, mechanism, credentials...
  if (f.size() < 6) {
    Reply(socket_.get(), f.size() > 1 ? f[1] : "", "500", "malformed ZAP request", "");
    return;
  }
  const std::string& request_id = f[1];
  const std::string& address = f[3];
  const std::string& mechanism = f[5];
  if (f[0] != "1.0" || mechanism != "CURVE" || f.size() < 7 || f[6].size() != kCurveKeyBytes) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    spdlog::warn("refused a {} client from {}: the aggregator accepts only CURVE clients",
                 mechanism.empty() ? "NULL" : mechanism, address);
    Reply(socket_.get(), request_id, "400", "CURVE required", "");
    return;
  }
  char z85[41] = {};
  zmq_z85_encode(z85, reinterpret_cast<const uint8_t*>(f[6].data()), kCurveKeyBytes);
  const std::string key(z85);
  if (clients_.Current()->Find(key) != nullptr) {
    Reply(socket_.get(), request_id, "200", "OK", key);
    return;
  }
  refused_.fetch_add(1, std::memory_order_relaxed);
  const auto now = std::chrono::steady_clock::now();
  auto [it, fresh] = last_logged_.try_emplace(key, now);
  if (fresh || now - it->second >= kLogEvery) {
    it->second = now;
    spdlog::warn("refused client key {} from {}: not in the aggregator's client list", key,
                 address);
  }
  Reply(socket_.get(), request_id, "400", "unknown client key", "");
}

}  // namespace fathom::security
