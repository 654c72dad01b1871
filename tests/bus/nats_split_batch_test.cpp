// Batches larger than the server's max_payload (nats-server's default, 1 MB) on a real
// nats-server: sent as several parts, delivered once and in order, and a collector that dies
// between parts neither loses nor duplicates events, inside or after the duplicate window.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bus/batch_parts.h"
#include "bus/bus_names.h"
#include "bus/bus_test_util.h"
#include "support/nats_server.h"

namespace fathom::bus::testing {
namespace {

using fathom::testing::NatsServers;

constexpr uint64_t kDefaultMaxPayload = 1 << 20;

SubscribeOptions From(const std::string& endpoint, std::optional<uint64_t> since) {
  SubscribeOptions options;
  options.endpoint = endpoint;
  options.since = since;
  return options;
}

// Parts [first_part, end_part) (from 0) of the batch (from, to], stored the way the publisher
// stores them (same split, headers and message ids), the first of them chained to `prev_seq`:
// a collector run that dies after storing some parts, or whose parts interleave with another
// collector's. Returns the last part's sequence; `parts_total` is the batch's part count.
uint64_t PublishParts(StreamInspector& inspect, const std::string& collector, const std::vector<Event>& batch,
                      uint64_t from, uint64_t to, size_t first_part, size_t end_part, uint64_t prev_seq,
                      size_t& parts_total) {
  const std::string subject = internal::CollectorSubject("fathom.events", collector);
  internal::SplitTarget target{collector, "test", static_cast<int64_t>(kDefaultMaxPayload),
                               internal::MaxFrame(static_cast<int64_t>(kDefaultMaxPayload), subject)};
  auto parts = internal::SplitBatch(target, batch, from, to);
  EXPECT_TRUE(parts.ok()) << parts.status().message();
  if (!parts.ok()) return 0;
  parts_total = parts.value().size();
  EXPECT_GE(parts_total, end_part) << "the batch needs fewer parts than the test assumes";
  const uint64_t digest = internal::BatchDigest(parts.value());
  internal::PartInfo info;
  info.parts = static_cast<uint32_t>(parts_total);
  info.total = static_cast<uint32_t>(batch.size());
  uint64_t seq = prev_seq;
  for (size_t k = first_part; k < end_part && k < parts_total; ++k) {
    info.part = static_cast<uint32_t>(k + 1);
    info.first_index = static_cast<uint32_t>(parts.value()[k].first);
    info.prev_seq = seq;
    auto msg = internal::BatchMessage(subject, parts.value()[k].frame,
                                      internal::PartMessageId(collector, to, info, digest), &info);
    EXPECT_TRUE(msg.ok());
    if (!msg.ok()) return 0;
    jsPubAck* ack = nullptr;
    EXPECT_EQ(js_PublishMsg(&ack, inspect.js(), msg.value().get(), nullptr, nullptr), NATS_OK);
    if (ack == nullptr) return 0;
    seq = ack->Sequence;
    jsPubAck_Destroy(ack);
  }
  return seq;
}

// A collector run that dies after storing the first `stored` parts of the batch (from, to].
uint64_t PublishFirstParts(StreamInspector& inspect, const std::string& collector, const std::vector<Event>& batch,
                           uint64_t from, uint64_t to, size_t stored, size_t& parts_total) {
  const uint64_t seq = PublishParts(inspect, collector, batch, from, to, 0, stored, 0, parts_total);
  EXPECT_GT(parts_total, stored) << "the batch must need more parts than the crashed run stored";
  return seq;
}

TEST(NatsSplitBatch, BatchOverMaxPayloadIsPublishedInPartsAndConsumedOnceInOrder) {
  NatsServers nats;  // default max_payload: 1 MB
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "mdt0"));
  ASSERT_NE(sink, nullptr);
  auto batch = LongEvents(0, 65536);
  Status s = sink->Commit(batch, SourcePosition{"mdt0", 70000});
  ASSERT_TRUE(s.ok()) << s.message();
  auto tail = LongEvents(65536, 10);
  ASSERT_TRUE(sink->Commit(tail, SourcePosition{"mdt0", 70010}).ok());

  StreamInspector inspect(nats.url(0));
  jsStreamInfo* si = inspect.Info("FATHOM");
  ASSERT_NE(si, nullptr);
  const uint64_t messages = si->State.Msgs;
  const uint64_t bytes = si->State.Bytes;
  jsStreamInfo_Destroy(si);
  EXPECT_GT(bytes, 4 * kDefaultMaxPayload) << "the batch must not fit in one message";
  EXPECT_GE(messages, 6u);
  // Every event of the batch carries the last part's sequence and its index in the batch.
  const uint64_t last_part = messages - 1;
  for (size_t i = 0; i < batch.size(); ++i) ASSERT_EQ(batch[i].id, (last_part << kIdIndexBits) | i);
  auto position = sink->Position("mdt0");
  ASSERT_TRUE(position.ok());
  EXPECT_EQ(position.value(), 70010u);
  auto restarted = OpenPublisherOrDie(PublisherFor(nats.url(0), "mdt0"));
  EXPECT_EQ(restarted->Position("mdt0").value(), 70010u);

  auto sub = OpenSubscriberOrDie(From(nats.url(0), 0));
  ASSERT_NE(sub, nullptr);
  const auto got = ReadExactly(*sub, 65546);
  ExpectNumbered(got, 0, 65546);
  for (size_t i = 0; i < batch.size(); ++i) ASSERT_EQ(got[i].id, batch[i].id);
  EXPECT_EQ(got[1234].path, batch[1234].path);
}

TEST(NatsSplitBatch, SubscriberStartingInsideASplitBatchReadsItsEarlierPartsBack) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "mdt0"));
  auto batch = LongEvents(0, 40000);
  ASSERT_TRUE(sink->Commit(batch, SourcePosition{"mdt0", 40000}).ok());
  // Event 100 lies in the first part; the subscriber's consumer starts at the last part.
  auto sub = OpenSubscriberOrDie(From(nats.url(0), batch[100].id));
  ExpectNumbered(ReadExactly(*sub, 39899), 101, 39899);

  // A durable consumer that acknowledged nothing and restarts gets the whole batch again.
  SubscribeOptions durable = From(nats.url(0), std::nullopt);
  durable.name = "audit";
  {
    auto first = OpenSubscriberOrDie(durable);
    ExpectNumbered(ReadExactly(*first, 40000), 0, 40000);
  }
  auto again = OpenSubscriberOrDie(durable);
  ExpectNumbered(ReadExactly(*again, 40000), 0, 40000);
}

TEST(NatsSplitBatch, DurableConsumerAcknowledgedBetweenPartsStillGetsTheWholeBatch) {
  NatsServers nats;
  StreamInspector inspect(nats.url(0));
  auto other = OpenPublisherOrDie(PublisherFor(nats.url(0), "tree"));
  ASSERT_TRUE(other->Position("tree").ok());  // creates the stream
  // mdt0's batch (0, 50000] in parts with tree's batch stored between its first two parts.
  const auto big = LongEvents(0, 50000);
  size_t parts = 0;
  const uint64_t part1 = PublishParts(inspect, "mdt0", big, 0, 50000, 0, 1, 0, parts);
  ASSERT_EQ(part1, 1u);
  auto small = LongEvents(50000, 10);
  ASSERT_TRUE(other->Commit(small, std::nullopt).ok());
  ASSERT_EQ(small.front().id >> kIdIndexBits, 2u);
  ASSERT_GT(PublishParts(inspect, "mdt0", big, 0, 50000, 1, parts, part1, parts), 2u);

  SubscribeOptions durable = From(nats.url(0), std::nullopt);
  durable.name = "audit";
  {
    auto sub = OpenSubscriberOrDie(durable);
    std::vector<Event> got;
    ASSERT_TRUE(ReadEvents(*sub, 10, got).ok());
    ASSERT_GE(got.size(), 10u);
    ExpectNumbered({got.begin(), got.begin() + 10}, 50000, 10);  // tree's batch first: its id is lower
    // Acknowledging tree's events acknowledges the stream through message 2, past mdt0's part 1.
    ASSERT_TRUE(sub->Acknowledge(got[9].id).ok());
  }
  auto sub = OpenSubscriberOrDie(durable);
  const auto got = ReadExactly(*sub, 50000);
  ExpectNumbered(got, 0, 50000);
  EXPECT_EQ(got.front().id >> kIdIndexBits, 1 + parts);
}

TEST(NatsSplitBatch, CollectorDyingBetweenPartsResendsTheBatchAndNoEventIsLostOrDuplicated) {
  NatsServers nats;
  const std::string collector = "mdt0";
  auto before = OpenPublisherOrDie(PublisherFor(nats.url(0), collector));
  auto first = LongEvents(0, 100);
  ASSERT_TRUE(before->Commit(first, SourcePosition{collector, 100}).ok());
  auto live = OpenSubscriberOrDie(From(nats.url(0), 0));
  ExpectNumbered(ReadExactly(*live, 100), 0, 100);

  // The crashed run stored 2 parts of the batch (100, 50000], then died.
  StreamInspector inspect(nats.url(0));
  const auto cut = LongEvents(100, 49900);
  size_t parts = 0;
  ASSERT_GT(PublishFirstParts(inspect, collector, cut, 100, 50000, 2, parts), 0u);
  std::vector<Event> early;
  ASSERT_TRUE(live->Next(early, std::chrono::milliseconds(500)).ok());
  EXPECT_TRUE(early.empty()) << "parts before the last were delivered before the batch was complete";

  // The restarted collector resumes after the last complete batch and sends the batch again:
  // the parts the stream already holds are recognised by their message ids.
  auto restarted = OpenPublisherOrDie(PublisherFor(nats.url(0), collector));
  auto position = restarted->Position(collector);
  ASSERT_TRUE(position.ok()) << position.status().message();
  EXPECT_EQ(position.value(), 100u);
  auto resent = LongEvents(100, 49900);
  Status s = restarted->Commit(resent, SourcePosition{collector, 50000});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(inspect.Messages("FATHOM"), 1 + parts);
  EXPECT_EQ(restarted->Position(collector).value(), 50000u);

  ExpectNumbered(ReadExactly(*live, 49900), 100, 49900);
  auto fresh = OpenSubscriberOrDie(From(nats.url(0), 0));
  const auto all = ReadExactly(*fresh, 50000);
  ExpectNumbered(all, 0, 50000);
  EXPECT_EQ(all.back().id, resent.back().id);
}

TEST(NatsSplitBatch, PartsOfACutBatchStoredAgainAfterTheDuplicateWindowAreNotDeliveredTwice) {
  NatsServers nats;
  StreamInspector inspect(nats.url(0));
  // The stream exists before the collector runs (EnsureStream keeps it as it is) with a
  // duplicate window short enough to let it pass; stream PROBE, with the same window, shows
  // when it has.
  for (const char* name : {"FATHOM", "PROBE"}) {
    const std::string subject = std::string(name) == "FATHOM" ? "fathom.events.>" : "probe";
    const char* subjects[] = {subject.c_str()};
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = name;
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    cfg.Duplicates = 200'000'000;  // 200 ms
    jsStreamInfo* created = nullptr;
    ASSERT_EQ(js_AddStream(&created, inspect.js(), &cfg, nullptr, nullptr), NATS_OK) << name;
    jsStreamInfo_Destroy(created);
  }

  const std::string collector = "mdt0";
  auto live = OpenSubscriberOrDie(From(nats.url(0), 0));
  const auto cut = LongEvents(0, 50000);
  size_t parts = 0;
  ASSERT_GT(PublishFirstParts(inspect, collector, cut, 0, 50000, 3, parts), 0u);

  // Wait until the streams no longer remember message ids stored from now on. nats-server
  // forgets ids on a timer that it re-arms no sooner than 50 ms ahead, so an id may outlive
  // the window by that much: the probe's first id is stored 100 ms after the parts, and once
  // the probe stream has forgotten it, FATHOM has forgotten the parts.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MsgId = "window-probe";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool forgotten = false;
  for (int round = 0; !forgotten && std::chrono::steady_clock::now() < deadline; ++round) {
    jsPubAck* ack = nullptr;
    ASSERT_EQ(js_Publish(&ack, inspect.js(), "probe", "x", 1, &po, nullptr), NATS_OK);
    forgotten = round > 0 && !ack->Duplicate;
    jsPubAck_Destroy(ack);
    if (!forgotten) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(forgotten) << "the duplicate window never passed";

  auto restarted = OpenPublisherOrDie(PublisherFor(nats.url(0), collector));
  EXPECT_EQ(restarted->Position(collector).value(), 0u);
  auto resent = LongEvents(0, 50000);
  ASSERT_TRUE(restarted->Commit(resent, SourcePosition{collector, 50000}).ok());
  // Stored twice: the cut run's 3 parts and every part of the resent batch.
  jsStreamInfo* si = inspect.Info("FATHOM");
  ASSERT_NE(si, nullptr);
  EXPECT_GE(si->State.Msgs, 3 + parts);
  jsStreamInfo_Destroy(si);

  ExpectNumbered(ReadExactly(*live, 50000), 0, 50000);
  auto fresh = OpenSubscriberOrDie(From(nats.url(0), 0));
  ExpectNumbered(ReadExactly(*fresh, 50000), 0, 50000);
}

TEST(NatsSplitBatch, EventLargerThanMaxPayloadFailsNamingPathSizeAndLimit) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "mdt0"));
  auto batch = LongEvents(0, 10);
  batch[7].path = "/data/huge-" + std::string(1'200'000, 'h');
  Status s = sink->Commit(batch, SourcePosition{"mdt0", 10});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/data/huge-hhhh"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1200011 bytes"), std::string::npos) << "path length: " << s.message();
  EXPECT_NE(s.message().find("max_payload " + std::to_string(kDefaultMaxPayload)), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("nats-server.conf"), std::string::npos) << s.message();
  EXPECT_LT(s.message().size(), 2000u) << "the whole path was quoted";
  StreamInspector inspect(nats.url(0));
  EXPECT_EQ(inspect.Messages("FATHOM"), 0u);
  EXPECT_EQ(sink->Position("mdt0").value(), 0u);
}

}  // namespace
}  // namespace fathom::bus::testing
