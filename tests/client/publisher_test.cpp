// The ZeroMQ publisher against a bare ROUTER socket: what it sends, and how it answers each
// reply of the protocol (acknowledgement, silence, refusal, position gap, stop).
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "client/fake_aggregator.h"
#include "fathom/client.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<EventSink> Open(const std::string& endpoint, std::chrono::milliseconds ack_timeout = 5s) {
  PublisherOptions options;
  options.endpoint = endpoint;
  options.collector = "host:/r";
  options.ack_timeout = ack_timeout;
  options.max_backoff = 200ms;
  auto publisher = OpenPublisher(options);
  EXPECT_TRUE(publisher.ok()) << publisher.status().message();
  return publisher.ok() ? std::move(publisher.value()) : nullptr;
}

// Answers the Hello of the publisher with `position`; returns the peer.
std::string Welcome(FakeAggregator& fake, uint64_t position) {
  auto hello = fake.ReceiveA<wire::Hello>();
  EXPECT_TRUE(hello.has_value()) << "no Hello";
  if (!hello) return "";
  EXPECT_EQ(hello->second.collector, "host:/r");
  fake.Send(hello->first, wire::Welcome{position});
  return hello->first;
}

TEST(ZmqPublisher, KernelBatchIsNumberedFromWelcomeAndGetsTheAcknowledgedIds) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint());
  std::vector<Event> batch = MakeEvents({"a", "b", "c"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  Welcome(fake, 7);
  auto sent = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->second.collector, "host:/r");
  EXPECT_EQ(sent->second.from_position, 7u);
  EXPECT_EQ(sent->second.to_position, 10u);
  ASSERT_EQ(sent->second.events.size(), 3u);
  EXPECT_EQ(sent->second.events[2].path, "/r/c");
  fake.Send(sent->first, wire::BatchAck{10, 101, 103});
  Status s = commit.get();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(batch[0].id, 101u);
  EXPECT_EQ(batch[2].id, 103u);
  auto position = publisher->Position("inotify");
  ASSERT_TRUE(position.ok());
  EXPECT_EQ(*position, 10u);
}

TEST(ZmqPublisher, SourcePositionsBoundTheBatch) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint());
  auto position = std::async(std::launch::async, [&] { return publisher->Position("lustre:fs-MDT0000"); });
  Welcome(fake, 40);
  auto welcomed = position.get();
  ASSERT_TRUE(welcomed.ok());
  ASSERT_EQ(*welcomed, 40u);
  std::vector<Event> batch = MakeEvents({"a"});
  auto commit = std::async(std::launch::async,
                           [&] { return publisher->Commit(batch, SourcePosition{"lustre:fs-MDT0000", 45}); });
  auto sent = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->second.from_position, 40u);
  EXPECT_EQ(sent->second.to_position, 45u);
  fake.Send(sent->first, wire::BatchAck{45, 1, 1});
  EXPECT_TRUE(commit.get().ok());
}

TEST(ZmqPublisher, UnacknowledgedBatchIsSentAgainUnchanged) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint(), 300ms);
  std::vector<Event> batch = MakeEvents({"a", "b"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  Welcome(fake, 0);
  auto first = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(first.has_value());
  // No answer: the publisher asks for the position again and resends the same batch.
  Welcome(fake, 0);
  auto second = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->second.from_position, first->second.from_position);
  EXPECT_EQ(second->second.to_position, first->second.to_position);
  EXPECT_EQ(second->second.events, first->second.events);
  fake.Send(second->first, wire::BatchAck{2, 5, 6});
  EXPECT_TRUE(commit.get().ok());
  EXPECT_EQ(batch[1].id, 6u);
}

TEST(ZmqPublisher, BatchCommittedBeforeItsAckWasLostIsNotSentAgain) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint(), 300ms);
  std::vector<Event> batch = MakeEvents({"a", "b"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  Welcome(fake, 0);
  ASSERT_TRUE(fake.ReceiveA<wire::Batch>().has_value());
  Welcome(fake, 2);  // it was committed; the acknowledgement got lost
  Status s = commit.get();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(fake.ReceiveA<wire::Batch>(500ms).has_value()) << "a committed batch was sent again";
}

TEST(ZmqPublisher, UnavailableAggregatorIsRetriedUntilItCommits) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint());
  std::vector<Event> batch = MakeEvents({"a"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  Welcome(fake, 0);
  for (int i = 0; i < 3; ++i) {
    auto sent = fake.ReceiveA<wire::Batch>();
    ASSERT_TRUE(sent.has_value()) << "no retry " << i;
    EXPECT_EQ(sent->second.to_position, 1u);
    fake.Send(sent->first, wire::Error{wire::ErrorCode::kUnavailable, 0, "disk full"});
  }
  auto sent = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(sent.has_value());
  fake.Send(sent->first, wire::BatchAck{1, 9, 9});
  EXPECT_TRUE(commit.get().ok());
  EXPECT_EQ(batch[0].id, 9u);
}

TEST(ZmqPublisher, PositionGapFailsSayingWhereToRestart) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint());
  std::vector<Event> batch = MakeEvents({"a"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  Welcome(fake, 0);
  auto sent = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(sent.has_value());
  fake.Send(sent->first, wire::Error{wire::ErrorCode::kPositionGap, 0, "gap"});
  Status s = commit.get();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("restart the collector; it resumes from position 0"), std::string::npos) << s.message();
}

TEST(ZmqPublisher, PermanentRefusalFailsWithTheAggregatorsMessage) {
  FakeAggregator fake;
  auto publisher = Open(fake.endpoint());
  std::vector<Event> batch = MakeEvents({"a"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  Welcome(fake, 0);
  auto sent = fake.ReceiveA<wire::Batch>();
  ASSERT_TRUE(sent.has_value());
  fake.Send(sent->first, wire::Error{wire::ErrorCode::kNotPermitted, 0, "key lacks the collect role"});
  Status s = commit.get();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("key lacks the collect role"), std::string::npos) << s.message();
}

TEST(ZmqPublisher, StopEndsACommitWaitingForAnUnreachableAggregator) {
  std::string endpoint;
  {
    FakeAggregator gone;  // a port that was just free
    endpoint = gone.endpoint();
  }
  auto publisher = Open(endpoint, 300ms);
  std::vector<Event> batch = MakeEvents({"a"});
  auto commit = std::async(std::launch::async, [&] { return publisher->Commit(batch, std::nullopt); });
  EXPECT_EQ(commit.wait_for(1s), std::future_status::timeout) << "gave up instead of retrying";
  const auto stop_at = std::chrono::steady_clock::now();
  publisher->Stop();
  ASSERT_EQ(commit.wait_for(2s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - stop_at, 500ms);
  EXPECT_FALSE(commit.get().ok());
}

}  // namespace
}  // namespace fathom::testing
