// zmq_handle.h — move-only owners of a ZeroMQ context and socket (C API), and helpers that
// turn ZeroMQ errors into Status values.
//
// ZmqContext terminates its context on destruction: every ZmqSocket made in it must be closed
// first. A socket is used from one thread at a time (it may move to another thread across a
// thread start or a join).
#pragma once

#include <zmq.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>

#include "fathom/status.h"

namespace fathom::security {

inline Status ZmqError(std::string_view what) {
  const int err = zmq_errno();
  return Status::Error(std::string(what) + ": " + zmq_strerror(err),
                       std::error_code(err, std::generic_category()));
}

class ZmqContext {
 public:
  ZmqContext() : context_(zmq_ctx_new()) {}
  ~ZmqContext() {
    if (context_ != nullptr) zmq_ctx_term(context_);
  }
  ZmqContext(ZmqContext&& other) noexcept : context_(std::exchange(other.context_, nullptr)) {}
  ZmqContext& operator=(ZmqContext&& other) noexcept {
    std::swap(context_, other.context_);
    return *this;
  }
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;
  void* get() const { return context_; }

 private:
  void* context_;
};

class ZmqSocket {
 public:
  ZmqSocket() = default;
  static Result<ZmqSocket> Open(void* context, int type, std::string_view what) {
    void* s = zmq_socket(context, type);
    if (s == nullptr) return ZmqError(std::string("creating the socket for ") + std::string(what));
    ZmqSocket socket;
    socket.socket_ = s;
    int linger = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
    return socket;
  }
  ~ZmqSocket() { Close(); }
  ZmqSocket(ZmqSocket&& other) noexcept : socket_(std::exchange(other.socket_, nullptr)) {}
  ZmqSocket& operator=(ZmqSocket&& other) noexcept {
    std::swap(socket_, other.socket_);
    return *this;
  }
  ZmqSocket(const ZmqSocket&) = delete;
  ZmqSocket& operator=(const ZmqSocket&) = delete;

  void* get() const { return socket_; }
  void Close() {
    if (socket_ != nullptr) zmq_close(std::exchange(socket_, nullptr));
  }
  Status Set(int option, const void* value, size_t size, std::string_view what) {
    if (zmq_setsockopt(socket_, option, value, size) != 0) return ZmqError(what);
    return Status::Ok();
  }
  Status SetInt(int option, int value, std::string_view what) {
    return Set(option, &value, sizeof(value), what);
  }
  Status SetString(int option, std::string_view value, std::string_view what) {
    return Set(option, value.data(), value.size(), what);
  }

 private:
  void* socket_ = nullptr;
};

// One received frame (zmq_msg_t) released on destruction.
class ZmqFrame {
 public:
  ZmqFrame() { zmq_msg_init(&msg_); }
  ~ZmqFrame() { zmq_msg_close(&msg_); }
  ZmqFrame(const ZmqFrame&) = delete;
  ZmqFrame& operator=(const ZmqFrame&) = delete;

  zmq_msg_t* get() { return &msg_; }
  std::string_view view() {
    return {static_cast<const char*>(zmq_msg_data(&msg_)), zmq_msg_size(&msg_)};
  }
  bool more() { return zmq_msg_more(&msg_) != 0; }
  // A metadata property ("User-Id", "Peer-Address"), "" when absent.
  std::string_view property(const char* name) {
    const char* value = zmq_msg_gets(&msg_, name);
    return value == nullptr ? std::string_view() : std::string_view(value);
  }

 private:
  zmq_msg_t msg_;
};

}  // namespace fathom::security
