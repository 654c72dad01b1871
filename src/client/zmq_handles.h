// zmq_handles.h — move-only owners of a libzmq context and socket, with errors as values.
//
// ZmqContext owns one context (its I/O thread); ZmqSocket owns one socket of it and must be
// destroyed before its context. A socket is used from one thread at a time (libzmq's rule);
// the context may be shared. Nothing here throws.
#pragma once

#include <zmq.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::client {

class ZmqContext {
 public:
  ZmqContext();
  ~ZmqContext();
  ZmqContext(ZmqContext&& other) noexcept;
  ZmqContext& operator=(ZmqContext&& other) noexcept;
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;

  void* get() const { return ctx_; }

 private:
  void* ctx_ = nullptr;
};

class ZmqSocket {
 public:
  ZmqSocket() = default;
  ~ZmqSocket();
  ZmqSocket(ZmqSocket&& other) noexcept;
  ZmqSocket& operator=(ZmqSocket&& other) noexcept;
  ZmqSocket(const ZmqSocket&) = delete;
  ZmqSocket& operator=(const ZmqSocket&) = delete;

  // A new socket of `type` (ZMQ_DEALER, ZMQ_PAIR, ...) in `context`.
  static Result<ZmqSocket> Create(const ZmqContext& context, int type);

  void* get() const { return socket_; }
  explicit operator bool() const { return socket_ != nullptr; }

  Status SetInt(int option, int value, std::string_view name);
  Status SetInt64(int option, int64_t value, std::string_view name);
  Status SetString(int option, std::string_view value, std::string_view name);
  Status Connect(const std::string& endpoint);
  // Sends one frame without blocking; false when it cannot be queued now (EAGAIN).
  Result<bool> TrySend(std::string_view frame);
  // Receives one whole message into `frame` without blocking; false when none is waiting.
  // The parts of a multi-part message are joined (a monitor event: 6 bytes, then the endpoint).
  Result<bool> TryReceive(std::string& frame);

 private:
  explicit ZmqSocket(void* socket) : socket_(socket) {}
  void Close();
  void* socket_ = nullptr;
};

}  // namespace fathom::client
