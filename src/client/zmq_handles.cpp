#include "client/zmq_handles.h"

#include <cerrno>
#include <utility>

namespace fathom::client {
namespace {

Status ZmqError(std::string_view what) {
  const int err = zmq_errno();
  return Status::Error(std::string(what) + ": " + zmq_strerror(err),
                       std::error_code(err, std::generic_category()));
}

}  // namespace

ZmqContext::ZmqContext() : ctx_(zmq_ctx_new()) {}

ZmqContext::~ZmqContext() {
  if (ctx_ != nullptr) zmq_ctx_term(ctx_);
}

ZmqContext::ZmqContext(ZmqContext&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

ZmqContext& ZmqContext::operator=(ZmqContext&& other) noexcept {
  if (this != &other) {
    if (ctx_ != nullptr) zmq_ctx_term(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
  }
  return *this;
}

ZmqSocket::~ZmqSocket() { Close(); }

ZmqSocket::ZmqSocket(ZmqSocket&& other) noexcept : socket_(std::exchange(other.socket_, nullptr)) {}

ZmqSocket& ZmqSocket::operator=(ZmqSocket&& other) noexcept {
  if (this != &other) {
    Close();
    socket_ = std::exchange(other.socket_, nullptr);
  }
  return *this;
}

void ZmqSocket::Close() {
  if (socket_ != nullptr) zmq_close(socket_);
  socket_ = nullptr;
}

Result<ZmqSocket> ZmqSocket::Create(const ZmqContext& context, int type) {
  if (context.get() == nullptr) return ZmqError("cannot create a ZeroMQ context");
  void* s = zmq_socket(context.get(), type);
  if (s == nullptr) return ZmqError("cannot create a ZeroMQ socket");
  return ZmqSocket(s);
}

Status ZmqSocket::SetInt(int option, int value, std::string_view name) {
  if (zmq_setsockopt(socket_, option, &value, sizeof value) != 0) {
    return ZmqError("cannot set ZeroMQ socket option " + std::string(name));
  }
  return Status::Ok();
}

Status ZmqSocket::SetInt64(int option, int64_t value, std::string_view name) {
  if (zmq_setsockopt(socket_, option, &value, sizeof value) != 0) {
    return ZmqError("cannot set ZeroMQ socket option " + std::string(name));
  }
  return Status::Ok();
}

Status ZmqSocket::SetString(int option, std::string_view value, std::string_view name) {
  if (zmq_setsockopt(socket_, option, value.data(), value.size()) != 0) {
    return ZmqError("cannot set ZeroMQ socket option " + std::string(name));
  }
  return Status::Ok();
}

Status ZmqSocket::Connect(const std::string& endpoint) {
  if (zmq_connect(socket_, endpoint.c_str()) != 0) {
    return ZmqError("cannot connect to '" + endpoint +
                    "' (expected tcp://HOST:PORT, ipc:///PATH or nats://HOST:PORT)");
  }
  return Status::Ok();
}

Result<bool> ZmqSocket::TrySend(std::string_view frame) {
  if (zmq_send(socket_, frame.data(), frame.size(), ZMQ_DONTWAIT) >= 0) return true;
  if (zmq_errno() == EAGAIN) return false;
  return ZmqError("cannot send a ZeroMQ message");
}

Result<bool> ZmqSocket::TryReceive(std::string& frame) {
  frame.clear();
  for (bool first = true;; first = false) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    const int n = zmq_msg_recv(&msg, socket_, first ? ZMQ_DONTWAIT : 0);
    if (n < 0) {
      const int err = zmq_errno();
      zmq_msg_close(&msg);
      if (first && err == EAGAIN) return false;
      return ZmqError("cannot receive a ZeroMQ message");
    }
    frame.append(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
    const bool more = zmq_msg_more(&msg) != 0;
    zmq_msg_close(&msg);
    if (!more) return true;
  }
}

}  // namespace fathom::client
