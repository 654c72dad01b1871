// The bus on a real 3-node JetStream cluster (replicas = 3) that loses its stream leader
// while a collector is publishing.
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <thread>

#include "bus/bus_test_util.h"
#include "support/nats_server.h"

namespace fathom::bus::testing {
namespace {

using fathom::testing::NatsServerOptions;
using fathom::testing::NatsServers;

TEST(NatsCluster, StreamLeaderKilledMidStreamLosesAndDuplicatesNoEvent) {
  NatsServers nats(NatsServerOptions{.nodes = 3, .max_payload = 8 << 20});
  BusOptions bus;
  bus.replicas = 3;
  constexpr uint64_t kBatch = 8192;
  constexpr uint64_t kBatches = 25;  // 204,800 events
  constexpr uint64_t kKillAfter = 8;

  auto sink = OpenPublisherOrDie(PublisherFor(nats.urls(), "mdt0", bus));
  ASSERT_NE(sink, nullptr);
  auto position = sink->Position("mdt0");  // creates the replicated stream
  ASSERT_TRUE(position.ok()) << position.status().message();
  ASSERT_EQ(position.value(), 0u);
  StreamInspector inspect(nats.urls());
  const int leader = nats.IndexOf(inspect.Leader("FATHOM"));
  ASSERT_GE(leader, 0) << "no stream leader reported";

  std::vector<std::vector<Event>> batches;
  for (uint64_t b = 0; b < kBatches; ++b) batches.push_back(NumberedEvents(b * kBatch, kBatch));
  std::atomic<uint64_t> committed{0};
  std::thread killer([&] {
    while (committed.load() < kKillAfter) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    nats.Kill(leader);
  });
  const auto start = std::chrono::steady_clock::now();
  double steady_s = 0;  // the batches published before the kill
  Status failure;
  for (uint64_t b = 0; b < kBatches && failure.ok(); ++b) {
    failure = sink->Commit(batches[b], SourcePosition{"mdt0", (b + 1) * kBatch});
    if (b + 1 == kKillAfter) steady_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    committed.store(b + 1);
  }
  committed.store(kBatches);
  killer.join();
  ASSERT_TRUE(failure.ok()) << failure.message();
  const double publish_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(nats.running(leader));
  const std::string new_leader = inspect.Leader("FATHOM");
  EXPECT_NE(new_leader, nats.name(leader));

  // Every batch is stored once: one message per collector position.
  EXPECT_EQ(inspect.Messages("FATHOM"), kBatches);
  auto restarted = OpenPublisherOrDie(PublisherFor(nats.urls(), "mdt0", bus));
  auto resumed = restarted->Position("mdt0");
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_EQ(resumed.value(), kBatches * kBatch);

  SubscribeOptions options;
  options.endpoint = nats.urls();
  options.since = 0;
  options.bus = bus;
  auto sub = OpenSubscriberOrDie(options);
  ASSERT_NE(sub, nullptr);
  const auto read_start = std::chrono::steady_clock::now();
  std::vector<Event> got;
  got.reserve(kBatch * kBatches);
  Status s = ReadEvents(*sub, kBatch * kBatches, got, std::chrono::seconds(30));
  ASSERT_TRUE(s.ok()) << s.message();
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
  ASSERT_EQ(got.size(), kBatch * kBatches);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(EventNumber(got[i]), i);
    if (i > 0) {
      ASSERT_LT(got[i - 1].id, got[i].id);
    }
  }
  std::vector<Event> more;
  ASSERT_TRUE(sub->Next(more, std::chrono::milliseconds(500)).ok());
  EXPECT_TRUE(more.empty());

  const double n = static_cast<double>(kBatch * kBatches);
  std::cout << "[ metric ] 3-node cluster, R3: published "
            << static_cast<uint64_t>(static_cast<double>(kKillAfter * kBatch) / steady_s)
            << " events/s before the kill, " << static_cast<uint64_t>(n / publish_s) << " events/s overall ("
            << publish_s << " s including the leader's failover), consumed " << static_cast<uint64_t>(n / read_s)
            << " events/s\n";
  RecordProperty("publish_events_per_s", std::to_string(static_cast<uint64_t>(n / publish_s)));
  RecordProperty("consume_events_per_s", std::to_string(static_cast<uint64_t>(n / read_s)));
}

}  // namespace
}  // namespace fathom::bus::testing
