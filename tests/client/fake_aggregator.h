// fake_aggregator.h — a bare ROUTER socket that speaks the wire protocol, driven step by step
// by a test, to pin down what the client library sends and how it reacts to each answer.
// Plain ZeroMQ (no CURVE). One thread (the test's).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "client/zmq_handles.h"
#include "wire/wire_messages.h"

namespace fathom::testing {

struct FromPeer {
  std::string peer;  // the DEALER's routing id
  wire::Message message;
};

class FakeAggregator {
 public:
  FakeAggregator() {
    auto socket = client::ZmqSocket::Create(context_, ZMQ_ROUTER);
    EXPECT_TRUE(socket.ok()) << socket.status().message();
    socket_ = std::move(socket.value());
    EXPECT_TRUE(socket_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER").ok());
    EXPECT_EQ(zmq_bind(socket_.get(), "tcp://127.0.0.1:*"), 0) << zmq_strerror(zmq_errno());
    char endpoint[256] = {};
    size_t size = sizeof endpoint;
    EXPECT_EQ(zmq_getsockopt(socket_.get(), ZMQ_LAST_ENDPOINT, endpoint, &size), 0);
    endpoint_ = endpoint;
  }

  const std::string& endpoint() const { return endpoint_; }

  // The next message from any peer within `timeout`.
  std::optional<FromPeer> Receive(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    zmq_pollitem_t item{socket_.get(), 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, static_cast<long>(timeout.count())) <= 0) return std::nullopt;
    std::string peer(256, '\0');
    const int n = zmq_recv(socket_.get(), peer.data(), peer.size(), 0);
    if (n < 0) return std::nullopt;
    peer.resize(static_cast<size_t>(n));
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, socket_.get(), 0) < 0) return std::nullopt;
    auto decoded = wire::Decode(std::string_view(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg)));
    zmq_msg_close(&msg);
    EXPECT_TRUE(decoded.ok()) << decoded.status().message();
    if (!decoded.ok()) return std::nullopt;
    return FromPeer{peer, std::move(decoded.value())};
  }

  // The next message of type T, skipping others (e.g. Acks); nullopt on timeout.
  template <typename T>
  std::optional<std::pair<std::string, T>> ReceiveA(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = Receive(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
      if (!got) return std::nullopt;
      if (auto* m = std::get_if<T>(&got->message)) return std::make_pair(got->peer, std::move(*m));
    }
    return std::nullopt;
  }

  void Send(const std::string& peer, const wire::Message& message) {
    const std::string frame = wire::Encode(message);
    ASSERT_GE(zmq_send(socket_.get(), peer.data(), peer.size(), ZMQ_SNDMORE), 0);
    ASSERT_GE(zmq_send(socket_.get(), frame.data(), frame.size(), 0), 0);
  }

 private:
  client::ZmqContext context_;
  client::ZmqSocket socket_;
  std::string endpoint_;
};

// Events with paths /r/<name>.
inline std::vector<Event> MakeEvents(std::initializer_list<const char*> names, uint64_t first_id = 0) {
  std::vector<Event> out;
  for (const char* name : names) {
    Event e;
    e.mask = kind::kCreate;
    e.root = "/r";
    e.path = std::string("/r/") + name;
    e.source = "inotify";
    e.ts_ns = 1;
    if (first_id > 0) e.id = first_id++;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace fathom::testing
