// aggregator_harness.cpp — see aggregator_harness.h.
#include "aggregator/aggregator_harness.h"

namespace fathom::testing {

namespace {
security::KeyPair NewKeys() {
  auto keys = security::GenerateKeyPair();
  EXPECT_TRUE(keys.ok()) << keys.status().message();
  return keys.value();
}
security::ClientGrant Grant(const std::string& name, const security::KeyPair& keys,
                            uint32_t roles, std::vector<std::string> paths) {
  security::ClientGrant g;
  g.name = name;
  g.public_key = keys.public_key;
  g.roles = roles;
  g.paths = std::move(paths);
  return g;
}
}  // namespace

TestKeys::TestKeys()
    : server(NewKeys()),
      collector(NewKeys()),
      alice(NewKeys()),
      bob(NewKeys()),
      reader(NewKeys()),
      stranger(NewKeys()) {}

security::ClientList TestKeys::Clients() const {
  security::ClientList list;
  list.Add(Grant("collector", collector, security::role::kCollect, {"/"}));
  list.Add(Grant("alice", alice, security::role::kSubscribe, {"/data/a"}));
  list.Add(Grant("bob", bob, security::role::kSubscribe, {"/data/b"}));
  list.Add(Grant("reader", reader, security::role::kSubscribe | security::role::kCollect, {"/"}));
  return list;
}

aggregator::AggregatorOptions SecureOptions(const TestKeys& keys, const std::string& store_path,
                                            const std::string& listen) {
  aggregator::AggregatorOptions o;
  o.listen = listen;
  o.store.path = store_path;
  o.store.sync_full = false;
  o.server_keys = keys.server;
  o.clients = keys.Clients();
  return o;
}

std::string FreeLoopbackEndpoint(const std::string& scratch_dir) {
  aggregator::AggregatorOptions o;
  o.listen = "tcp://127.0.0.1:*";
  o.insecure = true;
  o.store.path = scratch_dir + "/probe.db";
  auto probe = aggregator::Aggregator::Create(o);
  EXPECT_TRUE(probe.ok()) << probe.status().message();
  return probe.ok() ? probe.value()->endpoint() : std::string();
}

TestAggregator::TestAggregator(aggregator::AggregatorOptions options) {
  auto created = aggregator::Aggregator::Create(std::move(options));
  if (!created.ok()) {
    ADD_FAILURE() << created.status().message();
    return;
  }
  aggregator_ = std::move(created.value());
  endpoint_ = aggregator_->endpoint();
  thread_ = std::thread([this] {
    Status status = aggregator_->Run();
    EXPECT_TRUE(status.ok()) << status.message();
  });
}

TestAggregator::~TestAggregator() { Stop(); }

void TestAggregator::Stop() {
  if (!thread_.joinable()) return;
  aggregator_->Stop();
  thread_.join();
}

RawClient::RawClient(const std::string& endpoint, const security::KeyPair* keys,
                     const std::string& server_public_key)
    : context_(zmq_ctx_new()), socket_(zmq_socket(context_, ZMQ_DEALER)) {
  int linger = 0;
  zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger));
  if (keys != nullptr) {
    zmq_setsockopt(socket_, ZMQ_CURVE_SERVERKEY, server_public_key.data(), 40);
    zmq_setsockopt(socket_, ZMQ_CURVE_PUBLICKEY, keys->public_key.data(), 40);
    zmq_setsockopt(socket_, ZMQ_CURVE_SECRETKEY, keys->secret_key.data(), 40);
  }
  EXPECT_EQ(zmq_connect(socket_, endpoint.c_str()), 0) << zmq_strerror(zmq_errno());
}

RawClient::~RawClient() {
  zmq_close(socket_);
  zmq_ctx_term(context_);
}

void RawClient::SendRaw(const std::string& frame) {
  EXPECT_GE(zmq_send(socket_, frame.data(), frame.size(), 0), 0) << zmq_strerror(zmq_errno());
}

void RawClient::SendFrames(const std::vector<std::string>& frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const int flags = i + 1 < frames.size() ? ZMQ_SNDMORE : 0;
    EXPECT_GE(zmq_send(socket_, frames[i].data(), frames[i].size(), flags), 0);
  }
}

std::optional<std::string> RawClient::ReceiveFrame(std::chrono::milliseconds timeout) {
  zmq_pollitem_t item{socket_, 0, ZMQ_POLLIN, 0};
  if (zmq_poll(&item, 1, static_cast<long>(timeout.count())) <= 0) return std::nullopt;
  zmq_msg_t msg;
  zmq_msg_init(&msg);
  if (zmq_msg_recv(&msg, socket_, 0) < 0) {
    zmq_msg_close(&msg);
    return std::nullopt;
  }
  std::string frame(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
  zmq_msg_close(&msg);
  return frame;
}

std::optional<wire::Message> RawClient::Receive(std::chrono::milliseconds timeout) {
  auto frame = ReceiveFrame(timeout);
  if (!frame) return std::nullopt;
  auto decoded = wire::Decode(*frame);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  if (!decoded.ok()) return std::nullopt;
  return std::move(decoded.value());
}

std::optional<wire::Message> RawClient::ReceiveSkippingHeartbeats(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto m = Receive(left);
    if (!m || !std::holds_alternative<wire::Heartbeat>(*m)) return m;
  }
}

Event MakeEvent(const std::string& path, uint32_t mask) {
  Event e;
  e.ts_ns = NowNs();
  e.mask = mask;
  e.root = "/data";
  e.path = path;
  e.source = "test";
  return e;
}

std::vector<Event> MakeEvents(const std::string& dir, size_t n, size_t start) {
  std::vector<Event> events;
  events.reserve(n);
  for (size_t i = 0; i < n; ++i) events.push_back(MakeEvent(dir + "/f" + std::to_string(start + i)));
  return events;
}

uint64_t Hello(RawClient& c, const std::string& collector) {
  c.Send(wire::Hello{collector});
  auto m = c.Receive();
  EXPECT_TRUE(m && std::holds_alternative<wire::Welcome>(*m)) << "no Welcome";
  return m && std::holds_alternative<wire::Welcome>(*m) ? std::get<wire::Welcome>(*m).position : 0;
}

wire::Message SendBatch(RawClient& c, const std::string& collector, uint64_t from, uint64_t to,
                        std::vector<Event> events) {
  c.Send(wire::Batch{collector, from, to, std::move(events)});
  auto m = c.Receive(10s);
  EXPECT_TRUE(m.has_value()) << "no answer to a batch";
  return m ? *m : wire::Message(wire::Error{wire::ErrorCode::kMalformed, 0, "no answer"});
}

Delivery ReceiveThrough(RawClient& c, uint64_t start_after, uint64_t through, bool ack,
                        uint32_t credit, std::chrono::milliseconds timeout) {
  Delivery d;
  d.through = start_after;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (d.through < through) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto m = c.ReceiveSkippingHeartbeats(left);
    if (!m) break;
    if (auto* error = std::get_if<wire::Error>(&*m)) {
      d.error = *error;
      break;
    }
    auto* events = std::get_if<wire::Events>(&*m);
    if (events == nullptr) continue;
    if (events->after_id != d.through) d.contiguous = false;
    d.through = events->through_id;
    for (auto& e : events->events) d.events.push_back(std::move(e));
    if (ack) c.Send(wire::Ack{d.through, credit});
  }
  return d;
}

}  // namespace fathom::testing
