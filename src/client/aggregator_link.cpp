#include "client/aggregator_link.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "client/security_probe.h"
#include "security/curve_keys.h"

namespace fathom::client {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kPollSlice{50};
constexpr int kMaxFailedHandshakes = 3;
// ZAP status 400: the aggregator does not know or does not accept the client's key.
constexpr uint32_t kZapRefused = 400;

std::string MonitorEndpoint() {
  static std::atomic<uint64_t> counter{0};
  return "inproc://fathom-client-monitor-" + std::to_string(counter.fetch_add(1));
}

Status ValidateKeys(const ClientKeys& keys) {
  const bool any =
      !keys.public_key.empty() || !keys.secret_key.empty() || !keys.server_public_key.empty();
  if (!any) return Status::Ok();
  if (keys.public_key.empty() || keys.secret_key.empty() || keys.server_public_key.empty()) {
    return Status::Error(
        "CURVE needs the client's key pair and the aggregator's public key: give --key "
        "CLIENT.key and --server-key SERVER.pub together (or --insecure for plain ZeroMQ)");
  }
  for (const auto* k : {&keys.public_key, &keys.secret_key, &keys.server_public_key}) {
    if (!security::IsZ85Key(*k)) {
      return Status::Error("a CURVE key is not 40 characters of Z85 text: check the key files");
    }
  }
  return Status::Ok();
}

}  // namespace

Status StoppedError() {
  return Status::Error("stopped before the aggregator answered",
                       std::make_error_code(std::errc::operation_canceled));
}

bool IsStoppedError(const Status& status) {
  return !status.ok() && status.code() == std::make_error_code(std::errc::operation_canceled);
}

Result<std::unique_ptr<AggregatorLink>> AggregatorLink::Open(LinkOptions options,
                                                             const std::atomic<bool>& stop) {
  FATHOM_RETURN_IF_ERROR(ValidateKeys(options.keys));
  std::unique_ptr<AggregatorLink> link(new AggregatorLink(std::move(options), stop));
  FATHOM_RETURN_IF_ERROR(link->Setup());
  return link;
}

Status AggregatorLink::Setup() {
  FATHOM_ASSIGN_OR_RETURN(socket_, ZmqSocket::Create(context_, ZMQ_DEALER));
  FATHOM_RETURN_IF_ERROR(
      socket_.SetInt(ZMQ_LINGER, static_cast<int>(options_.linger.count()), "ZMQ_LINGER"));
  // Messages wait in the application, not in a pipe to a peer that may be gone.
  FATHOM_RETURN_IF_ERROR(socket_.SetInt(ZMQ_IMMEDIATE, 1, "ZMQ_IMMEDIATE"));
  FATHOM_RETURN_IF_ERROR(socket_.SetInt(ZMQ_RECONNECT_IVL, 100, "ZMQ_RECONNECT_IVL"));
  FATHOM_RETURN_IF_ERROR(socket_.SetInt(ZMQ_RECONNECT_IVL_MAX, 1000, "ZMQ_RECONNECT_IVL_MAX"));
  FATHOM_RETURN_IF_ERROR(socket_.SetInt(ZMQ_HEARTBEAT_IVL, 1000, "ZMQ_HEARTBEAT_IVL"));
  FATHOM_RETURN_IF_ERROR(socket_.SetInt(ZMQ_HEARTBEAT_TIMEOUT, 3000, "ZMQ_HEARTBEAT_TIMEOUT"));
  FATHOM_RETURN_IF_ERROR(socket_.SetInt64(
      ZMQ_MAXMSGSIZE, static_cast<int64_t>(wire::kMaxFrameBytes), "ZMQ_MAXMSGSIZE"));
  const ClientKeys& keys = options_.keys;
  if (!keys.public_key.empty()) {
    FATHOM_RETURN_IF_ERROR(
        socket_.SetString(ZMQ_CURVE_SERVERKEY, keys.server_public_key, "ZMQ_CURVE_SERVERKEY"));
    FATHOM_RETURN_IF_ERROR(
        socket_.SetString(ZMQ_CURVE_PUBLICKEY, keys.public_key, "ZMQ_CURVE_PUBLICKEY"));
    FATHOM_RETURN_IF_ERROR(
        socket_.SetString(ZMQ_CURVE_SECRETKEY, keys.secret_key, "ZMQ_CURVE_SECRETKEY"));
  }
  const std::string monitor_endpoint = MonitorEndpoint();
  constexpr int kEvents = ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED |
                          ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                          ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
  if (zmq_socket_monitor(socket_.get(), monitor_endpoint.c_str(), kEvents) != 0) {
    return Status::Error(std::string("cannot monitor a ZeroMQ socket: ") +
                         zmq_strerror(zmq_errno()));
  }
  FATHOM_ASSIGN_OR_RETURN(monitor_, ZmqSocket::Create(context_, ZMQ_PAIR));
  FATHOM_RETURN_IF_ERROR(monitor_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  FATHOM_RETURN_IF_ERROR(monitor_.Connect(monitor_endpoint));
  handshake_pending_ = false;
  return socket_.Connect(options_.endpoint);
}

Status AggregatorLink::Reconnect() {
  monitor_ = ZmqSocket();
  socket_ = ZmqSocket();
  return Setup();
}

Status AggregatorLink::CurveRequired() const {
  return Status::Error("the aggregator at " + options_.endpoint +
                       " requires CURVE: give --key CLIENT.key and --server-key SERVER.pub "
                       "(the aggregator's public key) instead of --insecure");
}

Status AggregatorLink::CurveNotUsed() const {
  return Status::Error("the aggregator at " + options_.endpoint +
                       " runs without CURVE (--insecure): drop --key and --server-key and "
                       "give --insecure, or start the aggregator with --key and --clients");
}

Status AggregatorLink::HandleMonitorEvent(uint16_t event, uint32_t value) {
  switch (event) {
    case ZMQ_EVENT_CONNECTED:
      handshake_pending_ = true;
      return Status::Ok();
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
      handshake_pending_ = false;
      failed_handshakes_ = 0;
      ++handshakes_;
      return Status::Ok();
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
      handshake_pending_ = false;
      if (value == kZapRefused) {
        return Status::Error("the aggregator at " + options_.endpoint +
                             " refused this client's key: list its public key (the .pub beside "
                             "--key) in the aggregator's configuration with the needed role, or "
                             "check that --key names the right file");
      }
      spdlog::warn(
          "the aggregator at {} could not check this client's key now (status {}); retrying",
          options_.endpoint, value);
      return Status::Ok();
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      // The greetings name different mechanisms: one side uses CURVE, the other does not.
      // Retrying cannot cure it, so the first such answer says what to change.
      if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
        if (options_.keys.public_key.empty()) return CurveRequired();
        return CurveNotUsed();
      }
      [[fallthrough]];
    case ZMQ_EVENT_DISCONNECTED:
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
      if (!handshake_pending_ && event == ZMQ_EVENT_DISCONNECTED) return Status::Ok();
      handshake_pending_ = false;
      if (++failed_handshakes_ < kMaxFailedHandshakes) return Status::Ok();
      // Without keys a handshake can only fail because the aggregator asks for them (the
      // mechanism mismatch may show only as failed handshakes, depending on who closes first).
      if (options_.keys.public_key.empty()) return CurveRequired();
      if (AcceptsPlainZeroMq(context_, options_.endpoint, milliseconds(1000)))
        return CurveNotUsed();
      return Status::Error(
          "the CURVE handshake with " + options_.endpoint + " failed " +
          std::to_string(failed_handshakes_) +
          " times in a row: check that --server-key is the aggregator's public key");
    default:
      return Status::Ok();
  }
}

Status AggregatorLink::PumpMonitor() {
  std::string event;
  while (true) {
    FATHOM_ASSIGN_OR_RETURN(bool got, monitor_.TryReceive(event));
    if (!got) return Status::Ok();
    if (event.size() < 6) continue;
    uint16_t id = 0;
    uint32_t value = 0;
    std::memcpy(&id, event.data(), sizeof id);
    std::memcpy(&value, event.data() + 2, sizeof value);
    FATHOM_RETURN_IF_ERROR(HandleMonitorEvent(id, value));
  }
}

Status AggregatorLink::Poll(short events, milliseconds slice) {
  zmq_pollitem_t items[2] = {{socket_.get(), 0, events, 0}, {monitor_.get(), 0, ZMQ_POLLIN, 0}};
  if (zmq_poll(items, 2, static_cast<long>(slice.count())) < 0 && zmq_errno() != EINTR) {
    return Status::Error(std::string("cannot poll a ZeroMQ socket: ") + zmq_strerror(zmq_errno()));
  }
  return Status::Ok();
}

Result<bool> AggregatorLink::Send(const wire::Message& message, milliseconds timeout) {
  return SendFrame(wire::Encode(message), timeout);
}

Result<bool> AggregatorLink::SendFrame(std::string_view frame, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    FATHOM_RETURN_IF_ERROR(PumpMonitor());
    FATHOM_ASSIGN_OR_RETURN(bool sent, socket_.TrySend(frame));
    if (sent) return true;
    if (stop_.load()) return StoppedError();
    const auto now = Clock::now();
    if (now >= deadline) return false;
    FATHOM_RETURN_IF_ERROR(Poll(
        ZMQ_POLLOUT, std::min(kPollSlice, std::chrono::duration_cast<milliseconds>(deadline - now) +
                                              milliseconds(1))));
  }
}

Result<std::optional<wire::Message>> AggregatorLink::Receive(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string frame;
  while (true) {
    FATHOM_RETURN_IF_ERROR(PumpMonitor());
    FATHOM_ASSIGN_OR_RETURN(bool got, socket_.TryReceive(frame));
    if (got) {
      auto message = wire::Decode(frame);
      if (message.ok()) return std::optional<wire::Message>(std::move(message).value());
      spdlog::warn("skipped a reply from {} that does not decode: {}", options_.endpoint,
                   message.status().message());
      continue;
    }
    if (stop_.load()) return StoppedError();
    const auto now = Clock::now();
    if (now >= deadline) return std::optional<wire::Message>();
    FATHOM_RETURN_IF_ERROR(Poll(
        ZMQ_POLLIN, std::min(kPollSlice, std::chrono::duration_cast<milliseconds>(deadline - now) +
                                             milliseconds(1))));
  }
}

}  // namespace fathom::client
