// Consumers against a real aggregator: live and replayed delivery in gap-free ranges, durable
// names, credit, grants, purge and retention.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aggregator/aggregator_harness.h"
#include "fathom/store.h"

namespace fathom::testing {
namespace {

class ConsumerProtocolTest : public ::testing::Test {
 protected:
  TempDir dir_;
  TestKeys keys_;
  std::string store_ = dir_ / "events.db";

  aggregator::AggregatorOptions Options() { return SecureOptions(keys_, store_); }

  // Commits `events` as one batch of collector "mdt0" continuing at position_.
  void Commit(RawClient& c, std::vector<Event> events) {
    const uint64_t n = events.size();
    auto answer = SendBatch(c, "mdt0", position_, position_ + n, std::move(events));
    ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer));
    position_ += n;
  }
  static wire::Subscribed Subscribe(RawClient& c, wire::Subscribe sub) {
    c.Send(sub);
    auto m = c.ReceiveSkippingHeartbeats();
    EXPECT_TRUE(m && std::holds_alternative<wire::Subscribed>(*m))
        << (m && std::holds_alternative<wire::Error>(*m) ? std::get<wire::Error>(*m).message
                                                         : "no Subscribed");
    return m && std::holds_alternative<wire::Subscribed>(*m) ? std::get<wire::Subscribed>(*m)
                                                               : wire::Subscribed{};
  }
  static wire::Subscribe Named(std::string name) {
    wire::Subscribe s;
    s.name = std::move(name);
    return s;
  }
  static wire::Subscribe Since(uint64_t since, std::string name = "") {
    wire::Subscribe s;
    s.name = std::move(name);
    s.has_since = true;
    s.since = since;
    return s;
  }

  uint64_t position_ = 0;
};

void ExpectIds(const std::vector<Event>& events, uint64_t first, uint64_t last) {
  ASSERT_EQ(events.size(), last - first + 1);
  for (uint64_t i = 0; i < events.size(); ++i) ASSERT_EQ(events[i].id, first + i);
}

TEST_F(ConsumerProtocolTest, ReplayFromSinceThenLiveInGapFreeRanges) {
  TestAggregator agg(Options());
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  Commit(collector, MakeEvents("/data/a", 100));
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  auto subscribed = Subscribe(consumer, Since(40));
  EXPECT_EQ(subscribed.start_after, 40u);
  EXPECT_EQ(subscribed.first_id, 1u);
  EXPECT_EQ(subscribed.last_id, 100u);
  Commit(collector, MakeEvents("/data/a", 100, 100));
  auto d = ReceiveThrough(consumer, 40, 200, /*ack=*/true);
  EXPECT_TRUE(d.contiguous);
  ExpectIds(d.events, 41, 200);
  EXPECT_EQ(d.events.back().path, "/data/a/f199");
}

TEST_F(ConsumerProtocolTest, ConsumerBehindTheRingIsServedFromTheStore) {
  auto options = Options();
  options.ring_capacity = 64;
  TestAggregator agg(options);
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  for (int i = 0; i < 6; ++i) Commit(collector, MakeEvents("/data/a", 500, i * 500));
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  Subscribe(consumer, Since(10));
  auto d = ReceiveThrough(consumer, 10, 3000, /*ack=*/true, 700);
  EXPECT_TRUE(d.contiguous);
  ExpectIds(d.events, 11, 3000);
}

TEST_F(ConsumerProtocolTest, NonRecursivePrefixAndKindsSelectEvents) {
  TestAggregator agg(Options());
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  Commit(collector, {MakeEvent("/data/a/x", kind::kCreate), MakeEvent("/data/a/x", kind::kDelete),
                     MakeEvent("/data/a/sub/y", kind::kDelete), MakeEvent("/data/ab", kind::kDelete),
                     MakeEvent("/data/a", kind::kOverflow)});
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  auto sub = Since(0);
  sub.path_prefix = "/data/a/";
  sub.recursive = false;
  sub.kinds = kind::kDelete;
  Subscribe(consumer, sub);
  auto d = ReceiveThrough(consumer, 0, 5, true);
  ASSERT_EQ(d.events.size(), 2u);
  EXPECT_EQ(d.events[0].id, 2u);
  EXPECT_EQ(d.events[1].id, 5u);  // OVERFLOW always
}

TEST_F(ConsumerProtocolTest, DurableNameResumesAfterReconnectAndAfterRestart) {
  {
    TestAggregator agg(Options());
    RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
    Commit(collector, MakeEvents("/data/a", 50));
    {
      RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
      Subscribe(consumer, Since(0, "indexer"));
      auto d = ReceiveThrough(consumer, 0, 50, /*ack=*/false);
      ExpectIds(d.events, 1, 50);
      consumer.Send(wire::Ack{30, 65536});
      consumer.Send(wire::StatsRequest{});  // answered after the Ack was handled
      ASSERT_TRUE(consumer.ReceiveSkippingHeartbeats().has_value());
    }
    RawClient again(agg.endpoint(), &keys_.reader, keys_.server.public_key);
    auto subscribed = Subscribe(again, Named("indexer"));
    EXPECT_EQ(subscribed.start_after, 30u);
    auto d = ReceiveThrough(again, 30, 50, /*ack=*/false);
    ExpectIds(d.events, 31, 50);
    again.Send(wire::Ack{45, 65536});
    again.Send(wire::StatsRequest{});
    ASSERT_TRUE(again.ReceiveSkippingHeartbeats().has_value());
  }
  TestAggregator restarted(Options());
  RawClient consumer(restarted.endpoint(), &keys_.reader, keys_.server.public_key);
  auto subscribed = Subscribe(consumer, Named("indexer"));
  EXPECT_EQ(subscribed.start_after, 45u);
  auto d = ReceiveThrough(consumer, 45, 50, /*ack=*/true);
  ExpectIds(d.events, 46, 50);
}

TEST_F(ConsumerProtocolTest, UnknownDurableNameStartsAtTheOldestEventHeldAndNoNameAtTheNewest) {
  TestAggregator agg(Options());
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  Commit(collector, MakeEvents("/data/a", 20));
  RawClient fresh(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  EXPECT_EQ(Subscribe(fresh, Named("fresh")).start_after, 0u);
  ExpectIds(ReceiveThrough(fresh, 0, 20, /*ack=*/true).events, 1, 20);
  RawClient live(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  EXPECT_EQ(Subscribe(live, Named("")).start_after, 20u);
}

TEST_F(ConsumerProtocolTest, ConsumerThatNeverAcksBlocksNeitherAnotherConsumerNorCommits) {
  auto options = Options();
  options.ring_capacity = 2000;
  TestAggregator agg(options);
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  RawClient slow(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  RawClient fast(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  auto sub = Since(0);
  sub.credit = 100;
  Subscribe(slow, sub);
  Subscribe(fast, Since(0));
  for (int i = 0; i < 20; ++i) Commit(collector, MakeEvents("/data/a", 500, i * 500));
  auto d = ReceiveThrough(fast, 0, 10000, /*ack=*/true, 1000);
  EXPECT_TRUE(d.contiguous);
  ExpectIds(d.events, 1, 10000);
  auto s = ReceiveThrough(slow, 0, 10000, /*ack=*/false, 0, 1500ms);
  EXPECT_EQ(s.events.size(), 100u);
  EXPECT_TRUE(s.contiguous);
}

TEST_F(ConsumerProtocolTest, ClientsWithDisjointGrantsNeverReceiveEachOthersEvents) {
  auto options = Options();
  options.ring_capacity = 150;  // the replay half is read from the store
  TestAggregator agg(options);
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  auto mixed = [](size_t start) {
    std::vector<Event> events;
    for (size_t i = start; i < start + 200; ++i) {
      events.push_back(MakeEvent((i % 2 ? "/data/b/f" : "/data/a/f") + std::to_string(i)));
    }
    events.push_back(MakeEvent("/data/abc/f"));  // a sibling sharing a's name as a prefix
    return events;
  };
  Commit(collector, mixed(0));
  RawClient alice(agg.endpoint(), &keys_.alice, keys_.server.public_key);
  RawClient bob(agg.endpoint(), &keys_.bob, keys_.server.public_key);
  Subscribe(alice, Since(0));
  Subscribe(bob, Since(0));
  Commit(collector, mixed(200));
  auto a = ReceiveThrough(alice, 0, 402, true);
  auto b = ReceiveThrough(bob, 0, 402, true);
  EXPECT_EQ(a.through, 402u);
  EXPECT_EQ(b.through, 402u);
  EXPECT_EQ(a.events.size(), 200u);
  EXPECT_EQ(b.events.size(), 200u);
  for (const auto& e : a.events) EXPECT_TRUE(e.path.starts_with("/data/a/")) << e.path;
  for (const auto& e : b.events) EXPECT_TRUE(e.path.starts_with("/data/b/")) << e.path;
  // Asking for the other's tree is refused outright.
  RawClient nosy(agg.endpoint(), &keys_.alice, keys_.server.public_key);
  auto sub = Since(0);
  sub.path_prefix = "/data/b";
  nosy.Send(sub);
  auto m = nosy.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Error>(*m));
  EXPECT_EQ(std::get<wire::Error>(*m).code, wire::ErrorCode::kNotPermitted);
}

TEST_F(ConsumerProtocolTest, AckWithoutSubscriptionGetsUnknownSession) {
  TestAggregator agg(Options());
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  consumer.Send(wire::Ack{5, 100});
  auto m = consumer.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Error>(*m));
  EXPECT_EQ(std::get<wire::Error>(*m).code, wire::ErrorCode::kUnknownSession);
}

TEST_F(ConsumerProtocolTest, SubscriptionBelowTheOldestIdGetsPurgedNamingTheIds) {
  auto options = Options();
  options.store.max_events = 100;
  TestAggregator agg(options);
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  for (int i = 0; i < 3; ++i) Commit(collector, MakeEvents("/data/a", 100, i * 100));
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  consumer.Send(Since(0));
  auto m = consumer.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Error>(*m));
  const auto& error = std::get<wire::Error>(*m);
  EXPECT_EQ(error.code, wire::ErrorCode::kPurged);
  EXPECT_EQ(error.position, 201u);
  EXPECT_NE(error.message.find("ids 1–200 are gone"), std::string::npos) << error.message;
  EXPECT_EQ(Subscribe(consumer, Since(200)).start_after, 200u);
}

TEST_F(ConsumerProtocolTest, PurgeAcknowledgedRemovesWhatEveryDurableConsumerAcknowledged) {
  auto options = Options();
  options.purge_acknowledged = true;
  TestAggregator agg(options);
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  RawClient one(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  RawClient two(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  Subscribe(one, Since(0, "one"));
  Subscribe(two, Since(0, "two"));
  Commit(collector, MakeEvents("/data/a", 100));
  ReceiveThrough(one, 0, 100, false);
  ReceiveThrough(two, 0, 100, false);
  one.Send(wire::Ack{60, 1000});
  two.Send(wire::Ack{40, 1000});
  StoreOptions o;
  o.path = store_;
  o.read_only = true;
  auto store = EventStore::Open(o);
  ASSERT_TRUE(store.ok());
  uint64_t first = 0;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto f = store.value()->FirstId();
    ASSERT_TRUE(f.ok());
    first = f.value();
    if (first != 1) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(first, 41u);
  RawClient late(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  late.Send(Since(0));
  auto m = late.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Error>(*m));
  EXPECT_EQ(std::get<wire::Error>(*m).code, wire::ErrorCode::kPurged);
  EXPECT_NE(std::get<wire::Error>(*m).message.find("ids 1–40"), std::string::npos);
}

TEST_F(ConsumerProtocolTest, IdleConsumerGetsHeartbeatsAndStatsCountTraffic) {
  TestAggregator agg(Options());
  RawClient collector(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  Commit(collector, MakeEvents("/data/a", 7));
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  Subscribe(consumer, Since(0));
  ReceiveThrough(consumer, 0, 7, true);
  auto m = consumer.Receive(3s);
  ASSERT_TRUE(m && std::holds_alternative<wire::Heartbeat>(*m));
  EXPECT_EQ(std::get<wire::Heartbeat>(*m).through_id, 7u);
  consumer.Send(wire::StatsRequest{});
  m = consumer.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Stats>(*m));
  auto stats = nlohmann::json::parse(std::get<wire::Stats>(*m).json);
  EXPECT_EQ(stats["events_committed"], 7);
  EXPECT_EQ(stats["events_sent"], 7);
  EXPECT_EQ(stats["consumers"], 1);
  EXPECT_EQ(stats["last_id"], 7);
}

TEST_F(ConsumerProtocolTest, SessionOfASilentConsumerExpires) {
  auto options = Options();
  options.session_timeout = 300ms;
  TestAggregator agg(options);
  RawClient consumer(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  Subscribe(consumer, Since(0));
  EXPECT_EQ(agg.get().Stats().consumers, 1u);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (agg.get().Stats().consumers != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(agg.get().Stats().consumers, 0u);
  consumer.Send(wire::Ack{0, 100});
  auto m = consumer.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Error>(*m));
  EXPECT_EQ(std::get<wire::Error>(*m).code, wire::ErrorCode::kUnknownSession);
}

}  // namespace
}  // namespace fathom::testing
