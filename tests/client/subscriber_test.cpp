// The ZeroMQ subscriber against a bare ROUTER socket: ids in order without gaps or repeats,
// resubscription from the last id on a gap or an unknown session, batched acknowledgements,
// and errors that name what went wrong.
#include <gtest/gtest.h>

#include "client/fake_aggregator.h"
#include "fathom/client.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Subscriber> Open(const std::string& endpoint, std::optional<uint64_t> since = std::nullopt) {
  SubscribeOptions options;
  options.endpoint = endpoint;
  options.since = since;
  options.name = "audit";
  options.path_prefix = "/r";
  options.recursive = false;
  options.kinds = kind::kCreate;
  auto subscriber = Subscriber::Open(options);
  EXPECT_TRUE(subscriber.ok()) << subscriber.status().message();
  return subscriber.ok() ? std::move(subscriber.value()) : nullptr;
}

// Calls Next() until `n` events came or 10 s passed.
std::vector<uint64_t> NextIds(Subscriber& subscriber, size_t n) {
  std::vector<Event> events;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (events.size() < n && std::chrono::steady_clock::now() < deadline) {
    Status s = subscriber.Next(events, 100ms);
    EXPECT_TRUE(s.ok()) << s.message();
    if (!s.ok()) break;
  }
  std::vector<uint64_t> ids;
  for (const auto& e : events) ids.push_back(e.id);
  return ids;
}

TEST(ZmqSubscriber, SendsItsFilterAndResubscribesFromTheLastIdAfterAGap) {
  FakeAggregator fake;
  auto subscriber = Open(fake.endpoint());
  std::vector<uint64_t> ids;
  std::thread consumer([&] { ids = NextIds(*subscriber, 6); });
  auto subscribe = fake.ReceiveA<wire::Subscribe>();
  ASSERT_TRUE(subscribe.has_value());
  EXPECT_EQ(subscribe->second.name, "audit");
  EXPECT_FALSE(subscribe->second.has_since);
  EXPECT_EQ(subscribe->second.path_prefix, "/r");
  EXPECT_FALSE(subscribe->second.recursive);
  EXPECT_EQ(subscribe->second.kinds, kind::kCreate);
  const std::string peer = subscribe->first;
  fake.Send(peer, wire::Subscribed{0, 1, 2});
  fake.Send(peer, wire::Events{0, 2, MakeEvents({"a", "b"}, 1)});
  fake.Send(peer, wire::Events{4, 6, MakeEvents({"e", "f"}, 5)});  // ids 3-4 never came
  auto again = fake.ReceiveA<wire::Subscribe>();
  ASSERT_TRUE(again.has_value()) << "no resubscription after a gap";
  EXPECT_TRUE(again->second.has_since);
  EXPECT_EQ(again->second.since, 2u);
  fake.Send(again->first, wire::Subscribed{2, 1, 6});
  fake.Send(again->first, wire::Events{2, 6, MakeEvents({"c", "d", "e", "f"}, 3)});
  consumer.join();
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(ZmqSubscriber, UnknownSessionMakesItSubscribeAgainAfterTheLastId) {
  FakeAggregator fake;
  auto subscriber = Open(fake.endpoint(), 10);
  std::vector<uint64_t> ids;
  std::thread consumer([&] { ids = NextIds(*subscriber, 3); });
  auto subscribe = fake.ReceiveA<wire::Subscribe>();
  ASSERT_TRUE(subscribe.has_value());
  EXPECT_TRUE(subscribe->second.has_since);
  EXPECT_EQ(subscribe->second.since, 10u);
  fake.Send(subscribe->first, wire::Subscribed{10, 1, 12});
  fake.Send(subscribe->first, wire::Events{10, 12, MakeEvents({"k", "l"}, 11)});
  fake.Send(subscribe->first, wire::Error{wire::ErrorCode::kUnknownSession, 0, "who are you"});
  auto again = fake.ReceiveA<wire::Subscribe>();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->second.since, 12u);
  fake.Send(again->first, wire::Subscribed{12, 1, 13});
  fake.Send(again->first, wire::Events{12, 13, MakeEvents({"m"}, 13)});
  consumer.join();
  EXPECT_EQ(ids, (std::vector<uint64_t>{11, 12, 13}));
}

TEST(ZmqSubscriber, SilenceForThreeSecondsMakesItSubscribeAgain) {
  FakeAggregator fake;
  auto subscriber = Open(fake.endpoint(), 0);
  std::vector<uint64_t> ids;
  std::thread consumer([&] { ids = NextIds(*subscriber, 2); });
  auto subscribe = fake.ReceiveA<wire::Subscribe>();
  ASSERT_TRUE(subscribe.has_value());
  fake.Send(subscribe->first, wire::Subscribed{0, 1, 1});
  fake.Send(subscribe->first, wire::Events{0, 1, MakeEvents({"a"}, 1)});
  const auto silent_from = std::chrono::steady_clock::now();
  auto again = fake.ReceiveA<wire::Subscribe>(6s);
  ASSERT_TRUE(again.has_value()) << "no resubscription after silence";
  EXPECT_GE(std::chrono::steady_clock::now() - silent_from, 2900ms);
  EXPECT_EQ(again->second.since, 1u);
  fake.Send(again->first, wire::Subscribed{1, 1, 2});
  fake.Send(again->first, wire::Events{1, 2, MakeEvents({"b"}, 2)});
  consumer.join();
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2}));
}

TEST(ZmqSubscriber, AcknowledgementsAreBatchedAndTheLastOneIsSentOnClose) {
  FakeAggregator fake;
  auto subscriber = Open(fake.endpoint(), 0);
  std::vector<Event> events;
  std::string peer;
  {
    std::thread consumer([&] {
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (events.size() < 1000 && std::chrono::steady_clock::now() < deadline) {
        const size_t before = events.size();
        EXPECT_TRUE(subscriber->Next(events, 200ms).ok());
        for (size_t j = before; j < events.size(); ++j) EXPECT_TRUE(subscriber->Acknowledge(events[j].id).ok());
      }
    });
    auto subscribe = fake.ReceiveA<wire::Subscribe>();
    ASSERT_TRUE(subscribe.has_value());
    peer = subscribe->first;
    fake.Send(peer, wire::Subscribed{0, 0, 0});
    for (uint64_t id = 1; id <= 1000; id += 10) {
      std::vector<Event> slice = MakeEvents({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, id);
      fake.Send(peer, wire::Events{id - 1, id + 9, slice});
    }
    consumer.join();
  }
  ASSERT_EQ(events.size(), 1000u);
  subscriber.reset();  // sends what is still unacknowledged
  int acks = 0;
  uint64_t last = 0;
  while (auto ack = fake.ReceiveA<wire::Ack>(1s)) {
    ++acks;
    EXPECT_GT(ack->second.id, last);
    EXPECT_EQ(ack->second.credit, 65536u);
    last = ack->second.id;
  }
  EXPECT_EQ(last, 1000u);
  EXPECT_LT(acks, 20) << "one Ack per event instead of batches";
}

TEST(ZmqSubscriber, PurgedIdsFailNamingThem) {
  FakeAggregator fake;
  auto subscriber = Open(fake.endpoint(), 0);
  Status status;
  std::thread consumer([&] {
    std::vector<Event> events;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (status.ok() && std::chrono::steady_clock::now() < deadline) status = subscriber->Next(events, 100ms);
  });
  auto subscribe = fake.ReceiveA<wire::Subscribe>();
  ASSERT_TRUE(subscribe.has_value());
  fake.Send(subscribe->first, wire::Error{wire::ErrorCode::kPurged, 501, "ids 1-500 are gone"});
  consumer.join();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("ids 1-500 are gone"), std::string::npos) << status.message();
}

TEST(ZmqSubscriber, StopEndsAWaitingNext) {
  FakeAggregator fake;
  auto subscriber = Open(fake.endpoint(), 0);
  Status status;
  const auto start = std::chrono::steady_clock::now();
  std::thread consumer([&] {
    std::vector<Event> events;
    status = subscriber->Next(events, 30s);
  });
  std::this_thread::sleep_for(200ms);
  subscriber->Stop();
  consumer.join();
  EXPECT_FALSE(status.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

}  // namespace
}  // namespace fathom::testing
