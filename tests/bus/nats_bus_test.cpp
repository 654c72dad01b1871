// A publisher and subscribers against one real nats-server with JetStream.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "bus/bus_test_util.h"
#include "support/nats_server.h"

namespace fathom::bus::testing {
namespace {

using fathom::testing::NatsServerOptions;
using fathom::testing::NatsServers;

constexpr uint64_t kIndexMask = (uint64_t{1} << kIdIndexBits) - 1;

SubscribeOptions SubscribeFrom(const std::string& endpoint, std::optional<uint64_t> since, std::string name = "") {
  SubscribeOptions options;
  options.endpoint = endpoint;
  options.since = since;
  options.name = std::move(name);
  return options;
}

// Publishes `batches` kernel-style batches of `per_batch` events; returns the ids assigned.
std::vector<uint64_t> PublishNumbered(EventSink& sink, uint64_t batches, uint64_t per_batch) {
  std::vector<uint64_t> ids;
  for (uint64_t b = 0; b < batches; ++b) {
    auto batch = NumberedEvents(b * per_batch, per_batch);
    Status s = sink.Commit(batch, std::nullopt);
    EXPECT_TRUE(s.ok()) << s.message();
    for (const auto& e : batch) ids.push_back(e.id);
  }
  return ids;
}

TEST(NatsBus, SubscriberFromZeroGetsEveryEventOnceInOrder) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  ASSERT_NE(sink, nullptr);
  const auto ids = PublishNumbered(*sink, 10, 1000);
  ASSERT_EQ(ids.size(), 10000u);
  EXPECT_EQ(ids.front(), (uint64_t{1} << kIdIndexBits) | 0);
  EXPECT_EQ(ids[1000], (uint64_t{2} << kIdIndexBits) | 0);
  EXPECT_EQ(ids.back(), (uint64_t{10} << kIdIndexBits) | 999);
  auto position = sink->Position("tree");
  ASSERT_TRUE(position.ok());
  EXPECT_EQ(position.value(), 10000u);

  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), 0));
  ASSERT_NE(sub, nullptr);
  std::vector<Event> got;
  Status s = ReadEvents(*sub, 10000, got);
  ASSERT_TRUE(s.ok()) << s.message();
  std::vector<Event> more;
  ASSERT_TRUE(sub->Next(more, std::chrono::milliseconds(300)).ok());
  EXPECT_TRUE(more.empty()) << "an event was delivered twice";
  ASSERT_EQ(got.size(), 10000u);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(EventNumber(got[i]), i);
    ASSERT_EQ(got[i].id, ids[i]);
    ASSERT_EQ(got[i].mask, NumberedEvent(i).mask);
  }
}

TEST(NatsBus, RestartedPublisherResumesPositionAndRepublishedBatchIsDuplicate) {
  NatsServers nats;
  const std::string collector = "lustre-MDT0000.cl1";  // '.' must not split the subject
  {
    auto first = OpenPublisherOrDie(PublisherFor(nats.url(0), collector));
    ASSERT_NE(first, nullptr);
    auto p = first->Position(collector);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p.value(), 0u);
    for (uint64_t b = 1; b <= 2; ++b) {
      auto batch = NumberedEvents((b - 1) * 50, 50);
      ASSERT_TRUE(first->Commit(batch, SourcePosition{collector, b * 100}).ok());
    }
  }
  // The restarted collector resumes after the last acknowledged batch...
  auto restarted = OpenPublisherOrDie(PublisherFor(nats.url(0), collector));
  auto crashed = OpenPublisherOrDie(PublisherFor(nats.url(0), collector));
  ASSERT_NE(restarted, nullptr);
  ASSERT_NE(crashed, nullptr);
  auto p = restarted->Position(collector);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p.value(), 200u);
  ASSERT_TRUE(crashed->Position(collector).ok());
  // ...and a batch stored by a run that died before it saw the acknowledgement, sent again,
  // is recognised by its message id: success, same ids, nothing stored twice.
  auto batch = NumberedEvents(100, 50);
  ASSERT_TRUE(crashed->Commit(batch, SourcePosition{collector, 300}).ok());
  auto again = NumberedEvents(100, 50);
  Status s = restarted->Commit(again, SourcePosition{collector, 300});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(again.front().id, batch.front().id);
  EXPECT_EQ(again.back().id, batch.back().id);
  StreamInspector inspect(nats.url(0));
  EXPECT_EQ(inspect.Messages("FATHOM"), 3u);
  EXPECT_EQ(restarted->Position(collector).value(), 300u);

  // A batch at or below the committed position is not sent at all.
  auto old = NumberedEvents(0, 50);
  ASSERT_TRUE(restarted->Commit(old, SourcePosition{collector, 200}).ok());
  EXPECT_EQ(inspect.Messages("FATHOM"), 3u);

  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), 0));
  std::vector<Event> got;
  ASSERT_TRUE(ReadEvents(*sub, 150, got).ok());
  ASSERT_EQ(got.size(), 150u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(EventNumber(got[i]), i);
}

TEST(NatsBus, KernelBatchesNumberedByThePublisherAreDroppedWhenSentTwice) {
  NatsServers nats;
  auto crashed = OpenPublisherOrDie(PublisherFor(nats.url(0), "inotify:/data"));
  auto restarted = OpenPublisherOrDie(PublisherFor(nats.url(0), "inotify:/data"));
  ASSERT_TRUE(crashed->Position("inotify:/data").ok());
  ASSERT_TRUE(restarted->Position("inotify:/data").ok());
  auto batch = NumberedEvents(0, 7);
  ASSERT_TRUE(crashed->Commit(batch, std::nullopt).ok());
  auto again = NumberedEvents(0, 7);
  ASSERT_TRUE(restarted->Commit(again, std::nullopt).ok());
  EXPECT_EQ(again.back().id, batch.back().id);
  StreamInspector inspect(nats.url(0));
  EXPECT_EQ(inspect.Messages("FATHOM"), 1u);
  EXPECT_EQ(restarted->Position("inotify:/data").value(), 7u);
}

TEST(NatsBus, DurableConsumerResumesAfterItsAcknowledgements) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  const auto ids = PublishNumbered(*sink, 5, 100);
  {
    auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), std::nullopt, "audit"));
    std::vector<Event> got;
    ASSERT_TRUE(ReadEvents(*sub, 500, got).ok());
    ASSERT_EQ(got.size(), 500u);
    ASSERT_TRUE(sub->Acknowledge(got[199].id).ok());  // the last event of the second message
  }
  {
    auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), std::nullopt, "audit"));
    std::vector<Event> got;
    ASSERT_TRUE(ReadEvents(*sub, 300, got).ok());
    ASSERT_EQ(got.size(), 300u);
    EXPECT_EQ(EventNumber(got.front()), 200u);
    EXPECT_EQ(got.front().id, ids[200]);
    // Acknowledging an event inside a message keeps that message: it comes again.
    ASSERT_TRUE(sub->Acknowledge(got[150].id).ok());  // event 350, inside the fourth message
  }
  {
    auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), std::nullopt, "audit"));
    std::vector<Event> got;
    ASSERT_TRUE(ReadEvents(*sub, 200, got).ok());
    ASSERT_EQ(got.size(), 200u);
    EXPECT_EQ(EventNumber(got.front()), 300u);
    ASSERT_TRUE(sub->Acknowledge(got.back().id).ok());
  }
  auto more = NumberedEvents(500, 10);
  ASSERT_TRUE(sink->Commit(more, std::nullopt).ok());
  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), std::nullopt, "audit"));
  std::vector<Event> got;
  ASSERT_TRUE(ReadEvents(*sub, 10, got).ok());
  ASSERT_EQ(got.size(), 10u);
  EXPECT_EQ(EventNumber(got.front()), 500u);
}

TEST(NatsBus, SinceInsideAMessageSkipsTheEventsAtOrBelowIt) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  const auto ids = PublishNumbered(*sink, 3, 10);
  ASSERT_EQ(ids[14] >> kIdIndexBits, 2u);
  ASSERT_EQ(ids[14] & kIndexMask, 4u);
  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), ids[14]));
  std::vector<Event> got;
  ASSERT_TRUE(ReadEvents(*sub, 15, got).ok());
  ASSERT_EQ(got.size(), 15u);
  EXPECT_EQ(EventNumber(got.front()), 15u);
  EXPECT_EQ(got.front().id, ids[15]);
  EXPECT_EQ(EventNumber(got.back()), 29u);
}

TEST(NatsBus, SubscriberWithoutSinceOrNameGetsOnlyNewEvents) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  PublishNumbered(*sink, 2, 10);
  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), std::nullopt));
  auto batch = NumberedEvents(20, 5);
  ASSERT_TRUE(sink->Commit(batch, std::nullopt).ok());
  std::vector<Event> got;
  ASSERT_TRUE(ReadEvents(*sub, 5, got).ok());
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(EventNumber(got.front()), 20u);
}

TEST(NatsBus, PathPrefixAndKindsAreApplied) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  std::vector<Event> batch;
  for (const char* path : {"/data/a", "/data/a/x", "/data/a/x/y", "/data/ab", "/data/b"}) {
    Event e = NumberedEvent(0);
    e.path = path;
    batch.push_back(e);
    e.mask = kind::kDelete;
    batch.push_back(e);
  }
  ASSERT_TRUE(sink->Commit(batch, std::nullopt).ok());
  auto paths = [&](bool recursive, uint32_t kinds) {
    SubscribeOptions o = SubscribeFrom(nats.url(0), 0);
    o.path_prefix = "/data/a/";
    o.recursive = recursive;
    o.kinds = kinds;
    auto sub = OpenSubscriberOrDie(o);
    std::vector<Event> got;
    EXPECT_TRUE(sub->Next(got, std::chrono::seconds(5)).ok());
    std::vector<std::string> out;
    for (const auto& e : got) out.push_back(e.path + " " + KindNames(e.mask));
    return out;
  };
  EXPECT_EQ(paths(true, kind::kDelete),
            (std::vector<std::string>{"/data/a DELETE", "/data/a/x DELETE", "/data/a/x/y DELETE"}));
  EXPECT_EQ(paths(false, kind::kCreate), (std::vector<std::string>{"/data/a CREATE", "/data/a/x CREATE"}));
}

TEST(NatsBus, StreamLimitsComeFromBusOptions) {
  NatsServers nats;
  BusOptions bus;
  bus.stream = "EVENTS";
  bus.subject_prefix = "site.fs";
  bus.max_age = std::chrono::hours(48);
  bus.max_bytes = 512 << 20;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree", bus));
  ASSERT_TRUE(sink->Position("tree").ok());
  StreamInspector inspect(nats.url(0));
  jsStreamInfo* si = inspect.Info("EVENTS");
  ASSERT_NE(si, nullptr);
  EXPECT_EQ(si->Config->MaxAge, int64_t{48} * 3600 * 1'000'000'000);
  EXPECT_EQ(si->Config->MaxBytes, int64_t{512} << 20);
  EXPECT_EQ(si->Config->Duplicates, int64_t{120} * 1'000'000'000);
  EXPECT_EQ(si->Config->Storage, js_FileStorage);
  EXPECT_EQ(si->Config->Discard, js_DiscardOld);
  EXPECT_EQ(si->Config->Replicas, 1);
  ASSERT_EQ(si->Config->SubjectsLen, 1);
  EXPECT_STREQ(si->Config->Subjects[0], "site.fs.>");
  jsStreamInfo_Destroy(si);
}

TEST(NatsBus, IdsRemovedByStreamLimitsMakeNextFailNamingThem) {
  NatsServers nats;
  BusOptions bus;
  bus.max_bytes = 64 << 10;  // holds a few of the batches below
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree", bus));
  PublishNumbered(*sink, 40, 200);
  StreamInspector inspect(nats.url(0));
  jsStreamInfo* si = inspect.Info("FATHOM");
  ASSERT_NE(si, nullptr);
  const uint64_t first_seq = si->State.FirstSeq;
  jsStreamInfo_Destroy(si);
  ASSERT_GT(first_seq, 2u) << "the stream limit removed nothing";

  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), 0));
  std::vector<Event> got;
  Status s = sub->Next(got, std::chrono::seconds(5));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(got.empty());
  const std::string gone = "ids " + std::to_string(uint64_t{1} << kIdIndexBits) + "-" +
                           std::to_string(((first_seq - 1) << kIdIndexBits) | kIndexMask) + " are gone";
  EXPECT_NE(s.message().find(gone), std::string::npos) << s.message();

  // From the oldest message held on, everything is there.
  auto from_first = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), (first_seq << kIdIndexBits) - 1));
  got.clear();
  ASSERT_TRUE(ReadEvents(*from_first, (40 - (first_seq - 1)) * 200, got).ok());
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(EventNumber(got.front()), (first_seq - 1) * 200);
  EXPECT_EQ(EventNumber(got.back()), 40u * 200 - 1);
}

TEST(NatsBus, BatchLargerThanMaxPayloadIsSplitIntoMessages) {
  NatsServers nats(NatsServerOptions{.nodes = 1, .max_payload = 32 << 10});
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  auto batch = NumberedEvents(0, 5000);
  Status s = sink->Commit(batch, std::nullopt);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(sink->Position("tree").value(), 5000u);
  StreamInspector inspect(nats.url(0));
  EXPECT_GT(inspect.Messages("FATHOM"), 1u);
  for (size_t i = 1; i < batch.size(); ++i) ASSERT_LT(batch[i - 1].id, batch[i].id);

  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), 0));
  std::vector<Event> got;
  ASSERT_TRUE(ReadEvents(*sub, 5000, got).ok());
  ASSERT_EQ(got.size(), 5000u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].id, batch[i].id);

  // A batch with the source's own position is split the same way; the position is the batch's.
  auto positioned = NumberedEvents(5000, 5000);
  auto lustre = OpenPublisherOrDie(PublisherFor(nats.url(0), "mdt0"));
  s = lustre->Commit(positioned, SourcePosition{"mdt0", 10});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(lustre->Position("mdt0").value(), 10u);
  got.clear();
  ASSERT_TRUE(ReadEvents(*sub, 5000, got).ok());
  ASSERT_EQ(got.size(), 5000u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(EventNumber(got[i]), 5000 + i);
}

TEST(NatsBus, StopMakesABlockedCommitFailPromptly) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  ASSERT_TRUE(sink->Position("tree").ok());
  nats.Kill(0);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    sink->Stop();
  });
  const auto start = std::chrono::steady_clock::now();
  auto batch = NumberedEvents(0, 10);
  Status s = sink->Commit(batch, std::nullopt);
  stopper.join();
  EXPECT_FALSE(s.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(NatsBus, ManyFullSizeBatchesArriveOnceAndInOrder) {
  NatsServers nats(NatsServerOptions{.nodes = 1, .max_payload = 8 << 20});
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  constexpr uint64_t kBatch = 8192;
  constexpr uint64_t kBatches = 40;
  std::vector<std::vector<Event>> batches;
  for (uint64_t b = 0; b < kBatches; ++b) batches.push_back(NumberedEvents(b * kBatch, kBatch));
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t b = 0; b < kBatches; ++b) {
    uint64_t to = (b + 1) * kBatch;
    ASSERT_TRUE(sink->Commit(batches[b], SourcePosition{"tree", to}).ok());
  }
  const double publish_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto sub = OpenSubscriberOrDie(SubscribeFrom(nats.url(0), 0));
  const auto read_start = std::chrono::steady_clock::now();
  std::vector<Event> got;
  got.reserve(kBatch * kBatches);
  ASSERT_TRUE(ReadEvents(*sub, kBatch * kBatches, got, std::chrono::seconds(30)).ok());
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
  ASSERT_EQ(got.size(), kBatch * kBatches);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(EventNumber(got[i]), i);
  const double n = static_cast<double>(kBatch * kBatches);
  std::cout << "[ metric ] one node: published " << static_cast<uint64_t>(n / publish_s)
            << " events/s, consumed " << static_cast<uint64_t>(n / read_s) << " events/s (" << kBatches
            << " batches of " << kBatch << ")\n";
  RecordProperty("publish_events_per_s", std::to_string(static_cast<uint64_t>(n / publish_s)));
  RecordProperty("consume_events_per_s", std::to_string(static_cast<uint64_t>(n / read_s)));
}

}  // namespace
}  // namespace fathom::bus::testing
