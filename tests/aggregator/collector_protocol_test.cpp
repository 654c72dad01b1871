// Collectors against a real aggregator: commits with ids, duplicates, position gaps,
// concurrency, disk full.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>

#include "aggregator/aggregator_harness.h"
#include "fathom/store.h"

namespace fathom::testing {
namespace {

class CollectorProtocolTest : public ::testing::Test {
 protected:
  TempDir dir_;
  TestKeys keys_;
  std::string store_ = dir_ / "events.db";

  std::vector<Event> Stored() {
    StoreOptions o;
    o.path = store_;
    o.read_only = true;
    auto store = EventStore::Open(o);
    EXPECT_TRUE(store.ok()) << store.status().message();
    std::vector<Event> out;
    EXPECT_TRUE(store.value()->Replay({}, [&](const Event& e) {
      out.push_back(e);
      return true;
    }).ok());
    return out;
  }
};

TEST_F(CollectorProtocolTest, BatchIsCommittedAndAckedWithItsIds) {
  TestAggregator agg(SecureOptions(keys_, store_));
  RawClient c(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  EXPECT_EQ(Hello(c, "mdt0"), 0u);
  auto answer = SendBatch(c, "mdt0", 0, 10, MakeEvents("/data/a", 10));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer));
  const auto& ack = std::get<wire::BatchAck>(answer);
  EXPECT_EQ(ack.to_position, 10u);
  EXPECT_EQ(ack.first_id, 1u);
  EXPECT_EQ(ack.last_id, 10u);
  answer = SendBatch(c, "mdt0", 10, 13, MakeEvents("/data/a", 3, 10));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer));
  EXPECT_EQ(std::get<wire::BatchAck>(answer).first_id, 11u);
  EXPECT_EQ(std::get<wire::BatchAck>(answer).last_id, 13u);
  agg.Stop();
  auto stored = Stored();
  ASSERT_EQ(stored.size(), 13u);
  EXPECT_EQ(stored[12].path, "/data/a/f12");
  // A restarted aggregator welcomes the collector back at its stored position.
  TestAggregator again(SecureOptions(keys_, store_));
  RawClient c2(again.endpoint(), &keys_.collector, keys_.server.public_key);
  EXPECT_EQ(Hello(c2, "mdt0"), 13u);
}

TEST_F(CollectorProtocolTest, DuplicateBatchIsAckedWithoutBeingStoredTwice) {
  TestAggregator agg(SecureOptions(keys_, store_));
  RawClient c(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  auto first = SendBatch(c, "mdt0", 0, 5, MakeEvents("/data/a", 5));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(first));
  auto again = SendBatch(c, "mdt0", 0, 5, MakeEvents("/data/a", 5));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(again));
  EXPECT_EQ(std::get<wire::BatchAck>(again).to_position, 5u);
  EXPECT_EQ(std::get<wire::BatchAck>(again).first_id, 0u);
  EXPECT_EQ(std::get<wire::BatchAck>(again).last_id, 0u);
  EXPECT_EQ(agg.get().Stats().duplicate_events, 5u);
  agg.Stop();
  EXPECT_EQ(Stored().size(), 5u);
}

TEST_F(CollectorProtocolTest, BatchAfterTheStoredPositionGetsPositionGap) {
  TestAggregator agg(SecureOptions(keys_, store_));
  RawClient c(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(
      SendBatch(c, "mdt0", 0, 4, MakeEvents("/data/a", 4))));
  auto answer = SendBatch(c, "mdt0", 7, 9, MakeEvents("/data/a", 2));
  ASSERT_TRUE(std::holds_alternative<wire::Error>(answer));
  EXPECT_EQ(std::get<wire::Error>(answer).code, wire::ErrorCode::kPositionGap);
  EXPECT_EQ(std::get<wire::Error>(answer).position, 4u);
  agg.Stop();
  EXPECT_EQ(Stored().size(), 4u);
}

TEST_F(CollectorProtocolTest, ConcurrentPipelinedCollectorsAreAllCommittedOnce) {
  auto options = SecureOptions(keys_, store_);
  options.commit_queue_events = 1000;  // reading pauses while four batches await commit
  TestAggregator agg(options);
  constexpr int kCollectors = 4, kBatches = 20, kPerBatch = 250;
  std::vector<std::thread> threads;
  std::atomic<int> acked{0};
  for (int c = 0; c < kCollectors; ++c) {
    threads.emplace_back([&, c] {
      RawClient client(agg.endpoint(), &keys_.collector, keys_.server.public_key);
      const std::string name = "mdt" + std::to_string(c);
      for (int b = 0; b < kBatches; ++b) {  // all sent before any answer is read
        client.Send(wire::Batch{name, uint64_t(b) * kPerBatch, uint64_t(b + 1) * kPerBatch,
                                MakeEvents("/data/" + name, kPerBatch, b * kPerBatch)});
      }
      uint64_t expect_to = kPerBatch;
      for (int b = 0; b < kBatches; ++b) {
        auto m = client.Receive(10s);
        ASSERT_TRUE(m && std::holds_alternative<wire::BatchAck>(*m));
        EXPECT_EQ(std::get<wire::BatchAck>(*m).to_position, expect_to);
        EXPECT_EQ(std::get<wire::BatchAck>(*m).last_id - std::get<wire::BatchAck>(*m).first_id + 1,
                  uint64_t(kPerBatch));
        expect_to += kPerBatch;
        ++acked;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(acked.load(), kCollectors * kBatches);
  agg.Stop();
  auto stored = Stored();
  ASSERT_EQ(stored.size(), size_t(kCollectors * kBatches * kPerBatch));
  for (size_t i = 0; i < stored.size(); ++i) ASSERT_EQ(stored[i].id, i + 1);
  // Per collector, the events are stored in the order sent.
  std::map<std::string, int> next;
  for (const auto& e : stored) {
    const std::string name = e.path.substr(6, 4);
    EXPECT_EQ(e.path, "/data/" + name + "/f" + std::to_string(next[name]++));
  }
}

TEST_F(CollectorProtocolTest, CollectorWithoutTheCollectRoleIsNotPermitted) {
  TestAggregator agg(SecureOptions(keys_, store_));
  RawClient c(agg.endpoint(), &keys_.alice, keys_.server.public_key);
  auto answer = SendBatch(c, "mdt0", 0, 1, MakeEvents("/data/a", 1));
  ASSERT_TRUE(std::holds_alternative<wire::Error>(answer));
  EXPECT_EQ(std::get<wire::Error>(answer).code, wire::ErrorCode::kNotPermitted);
}

// A tmpfs of a few megabytes holds the store; a filler file takes the rest of the space.
class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, "size=4m"), 0)
        << "mounting a tmpfs on " << dir_.path() << ": " << strerror(errno);
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  void Fill() {
    std::ofstream filler(dir_ / "filler", std::ios::binary);
    std::string block(64 * 1024, 'x');
    while (filler.write(block.data(), block.size())) {
    }
  }
  TempDir dir_;
  bool mounted_ = false;
  TestKeys keys_;
};

TEST_F(DiskFullTest, FullDiskAnswersUnavailableThenCommitsOnceSpaceReturns) {
  auto options = SecureOptions(keys_, dir_ / "events.db");
  TestAggregator agg(options);
  RawClient c(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(
      SendBatch(c, "mdt0", 0, 100, MakeEvents("/data/a", 100))));
  Fill();
  uint64_t position = 100;
  bool refused = false;
  for (int i = 0; i < 50 && !refused; ++i) {  // until the WAL outgrows the space left
    auto answer = SendBatch(c, "mdt0", position, position + 2000, MakeEvents("/data/a", 2000, position));
    if (auto* e = std::get_if<wire::Error>(&answer)) {
      EXPECT_EQ(e->code, wire::ErrorCode::kUnavailable) << e->message;
      EXPECT_EQ(e->position, position);
      refused = true;
    } else {
      position += 2000;
    }
  }
  ASSERT_TRUE(refused) << "the store never ran out of space";
  std::filesystem::remove(dir_ / "filler");
  auto answer = SendBatch(c, "mdt0", position, position + 2000,
                          MakeEvents("/data/a", 2000, position));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer))
      << std::get<wire::Error>(answer).message;
  EXPECT_EQ(std::get<wire::BatchAck>(answer).last_id, position + 2000);
  agg.Stop();
  StoreOptions o;
  o.path = dir_ / "events.db";
  o.read_only = true;
  auto store = EventStore::Open(o);
  ASSERT_TRUE(store.ok());
  uint64_t expected = 1;
  ASSERT_TRUE(store.value()->Replay({}, [&](const Event& e) {
    EXPECT_EQ(e.id, expected);
    EXPECT_EQ(e.path, "/data/a/f" + std::to_string(expected - 1));
    ++expected;
    return true;
  }).ok());
  EXPECT_EQ(expected, position + 2001);
}

}  // namespace
}  // namespace fathom::testing
