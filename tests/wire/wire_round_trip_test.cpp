// Every wire message encodes and decodes back to itself, with realistic and edge values.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "store/event_chunk.h"
#include "wire/wire_messages.h"
#include "wire/wire_test_events.h"

namespace fathom::wire {
namespace {

using testing::EdgeEvents;
using testing::TypicalEvents;
using testing::WithoutIds;

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kMaxU32 = std::numeric_limits<uint32_t>::max();

template <typename M>
M RoundTrip(const M& message) {
  const std::string frame = Encode(message);
  auto decoded = Decode(frame);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  if (!decoded.ok()) return M{};
  EXPECT_TRUE(std::holds_alternative<M>(*decoded));
  auto type = PeekType(frame);
  EXPECT_TRUE(type.ok()) << type.status().message();
  EXPECT_EQ(static_cast<uint8_t>(*type), static_cast<uint8_t>(frame[3]));
  if (!std::holds_alternative<M>(*decoded)) return M{};
  return std::get<M>(*decoded);
}

TEST(WireRoundTrip, HelloKeepsEmptyUnicodeAndBinaryNames) {
  for (const std::string& name : {std::string(), std::string("mdt0-collector"),
                                 std::string("n\xc5\x93ud-\xe2\x82\xac"), std::string("a\0b\xff", 4)}) {
    EXPECT_EQ(RoundTrip(Hello{name}).collector, name);
  }
}

TEST(WireRoundTrip, WelcomeKeepsZeroAndMaxPosition) {
  EXPECT_EQ(RoundTrip(Welcome{0}).position, 0u);
  EXPECT_EQ(RoundTrip(Welcome{kMaxU64}).position, kMaxU64);
  EXPECT_EQ(RoundTrip(Welcome{127}).position, 127u);
  EXPECT_EQ(RoundTrip(Welcome{128}).position, 128u);
}

TEST(WireRoundTrip, BatchWithoutEvents) {
  Batch b{"c", 7, 7, {}};
  const Batch out = RoundTrip(b);
  EXPECT_EQ(out.collector, "c");
  EXPECT_EQ(out.from_position, 7u);
  EXPECT_EQ(out.to_position, 7u);
  EXPECT_TRUE(out.events.empty());
}

TEST(WireRoundTrip, BatchKeepsEveryFieldButIds) {
  Batch b{"scratch-MDT0000", 1000, 1010, TypicalEvents(10, 55)};
  const Batch out = RoundTrip(b);
  EXPECT_EQ(out.collector, b.collector);
  EXPECT_EQ(out.from_position, 1000u);
  EXPECT_EQ(out.to_position, 1010u);
  EXPECT_EQ(out.events, WithoutIds(b.events));
}

TEST(WireRoundTrip, BatchKeepsEdgeEvents) {
  Batch b{"", 0, kMaxU64, EdgeEvents()};
  const Batch out = RoundTrip(b);
  EXPECT_EQ(out.to_position, kMaxU64);
  EXPECT_EQ(out.events, WithoutIds(b.events));
}

TEST(WireRoundTrip, BatchOfMaxEventsSpansManyChunks) {
  Batch b{"big", kMaxU64 - 65536, kMaxU64, TypicalEvents(kMaxBatchEvents)};
  const Batch out = RoundTrip(b);
  ASSERT_EQ(out.events.size(), kMaxBatchEvents);
  EXPECT_EQ(out.events, WithoutIds(b.events));
}

TEST(WireRoundTrip, BatchOfChunkSizePlusOne) {
  Batch b{"c", 0, 4097, TypicalEvents(4097)};
  EXPECT_EQ(RoundTrip(b).events, WithoutIds(b.events));
}

TEST(WireRoundTrip, BatchAckKeepsIdsAndDuplicateZeros) {
  const BatchAck out = RoundTrip(BatchAck{kMaxU64, 1, kMaxU64});
  EXPECT_EQ(out.to_position, kMaxU64);
  EXPECT_EQ(out.first_id, 1u);
  EXPECT_EQ(out.last_id, kMaxU64);
  const BatchAck dup = RoundTrip(BatchAck{12, 0, 0});
  EXPECT_EQ(dup.to_position, 12u);
  EXPECT_EQ(dup.first_id, 0u);
  EXPECT_EQ(dup.last_id, 0u);
}

TEST(WireRoundTrip, SubscribeKeepsEveryFlagCombination) {
  for (bool has_since : {false, true}) {
    for (bool recursive : {false, true}) {
      Subscribe s{"durable-\xce\xbb", has_since, has_since ? kMaxU64 : 0,
                  "/lustre/scratch/\xe6\x97\xa5", recursive, kind::kCreate | kind::kDelete,
                  kMaxU32};
      const Subscribe out = RoundTrip(s);
      EXPECT_EQ(out.name, s.name);
      EXPECT_EQ(out.has_since, has_since);
      EXPECT_EQ(out.since, s.since);
      EXPECT_EQ(out.path_prefix, s.path_prefix);
      EXPECT_EQ(out.recursive, recursive);
      EXPECT_EQ(out.kinds, s.kinds);
      EXPECT_EQ(out.credit, kMaxU32);
    }
  }
  const Subscribe defaults = RoundTrip(Subscribe{});
  EXPECT_EQ(defaults.name, "");
  EXPECT_FALSE(defaults.has_since);
  EXPECT_TRUE(defaults.recursive);
  EXPECT_EQ(defaults.kinds, kind::kAll);
  EXPECT_EQ(defaults.credit, 65536u);
}

TEST(WireRoundTrip, SubscribedKeepsIds) {
  const Subscribed out = RoundTrip(Subscribed{5, 1, kMaxU64});
  EXPECT_EQ(out.start_after, 5u);
  EXPECT_EQ(out.first_id, 1u);
  EXPECT_EQ(out.last_id, kMaxU64);
}

TEST(WireRoundTrip, AckKeepsIdAndCredit) {
  const Ack out = RoundTrip(Ack{kMaxU64, kMaxU32});
  EXPECT_EQ(out.id, kMaxU64);
  EXPECT_EQ(out.credit, kMaxU32);
  EXPECT_EQ(RoundTrip(Ack{0, 0}).credit, 0u);
}

TEST(WireRoundTrip, EventsWithoutEventsCoversARange) {
  const Events out = RoundTrip(Events{100, 200, {}});
  EXPECT_EQ(out.after_id, 100u);
  EXPECT_EQ(out.through_id, 200u);
  EXPECT_TRUE(out.events.empty());
}

TEST(WireRoundTrip, EventsKeepContiguousIds) {
  Events m{1000, 1000 + 8192, TypicalEvents(8192, 1001)};
  EXPECT_EQ(RoundTrip(m).events, m.events);
}

TEST(WireRoundTrip, EventsKeepSparseIdsUpToMaxU64) {
  auto events = EdgeEvents();
  events[0].id = 1;
  events[1].id = 2;
  events[2].id = 1ull << 40;
  events[3].id = kMaxU64;
  Events m{0, kMaxU64, events};
  EXPECT_EQ(RoundTrip(m).events, events);
}

// The aggregator encodes scattered events of its ring through pointers: the same bytes as the
// Events message holding copies of them.
TEST(WireRoundTrip, EventsEncodedFromPointersAreTheSameFrame) {
  const auto ring = TypicalEvents(10000, 501);
  std::vector<Event> picked;
  std::vector<const Event*> pointers;
  for (size_t i = 0; i < ring.size(); i += 2) {  // every other event, across chunk boundaries
    picked.push_back(ring[i]);
    pointers.push_back(&ring[i]);
  }
  const std::string expected = Encode(Events{500, 10500, picked});
  const EventRun run{pointers, {}, 0, 0};
  EXPECT_EQ(EncodeEvents(500, 10500, {&run, 1}), expected);
  EXPECT_EQ(EncodeEvents(7, 9, {}), Encode(Events{7, 9, {}}));
  const Events out = RoundTrip(Events{500, 10500, picked});
  EXPECT_EQ(out.events, picked);
}

// Collectors encode their events in place: the same bytes as the Batch message holding copies.
TEST(WireRoundTrip, BatchEncodedInPlaceIsTheSameFrame) {
  const auto events = TypicalEvents(5000, 77);  // ids are not sent
  EXPECT_EQ(EncodeBatch("mdt0", 10, 5010, events), Encode(Batch{"mdt0", 10, 5010, events}));
  EXPECT_EQ(EncodeBatch("", 0, 0, {}), Encode(Batch{"", 0, 0, {}}));
}

// The aggregator stores and passes on a Batch's chunks as they came, without decoding them.
TEST(WireRoundTrip, BatchChunksAreKeptAsTheyCame) {
  auto events = TypicalEvents(5000, 1);
  events[4500].ts_ns = 7;  // the oldest, in the second chunk
  const std::string frame = EncodeBatch("mdt0", 0, 5000, events);
  std::vector<EncodedChunk> chunks;
  auto decoded = Decode(frame, &chunks);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_TRUE(std::get<Batch>(*decoded).events.empty());  // the chunks hold them
  EXPECT_EQ(std::get<Batch>(*decoded).to_position, 5000u);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].count, store::kMaxChunkEvents);
  EXPECT_EQ(chunks[1].count, 5000 - store::kMaxChunkEvents);
  EXPECT_EQ(chunks[0].min_ts, events[0].ts_ns);
  EXPECT_EQ(chunks[0].max_ts, events[store::kMaxChunkEvents - 1].ts_ns);
  EXPECT_EQ(chunks[1].min_ts, 7);
  EXPECT_EQ(chunks[1].max_ts, events[4999].ts_ns);
  size_t next = 0;
  for (const auto& c : chunks) {
    EXPECT_NE(frame.find(*c.data), std::string::npos);  // the very bytes of the frame
    Status s = store::DecodeChunk(*c.data, 0, [&](const Event& e) {
      EXPECT_EQ(e.path, events[next].path);
      EXPECT_EQ(e.attrs, events[next].attrs);
      ++next;
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.message();
  }
  EXPECT_EQ(next, events.size());
  ASSERT_TRUE(Decode(Encode(Events{0, 3, TypicalEvents(3)}), &chunks).ok());
  EXPECT_TRUE(chunks.empty());  // only a Batch fills them
}

// A Batch whose chunks are kept is checked as decoding checks it, and an event that reports
// no kind (which no consumer could receive) is refused there.
TEST(WireRoundTrip, KeptBatchChunksAreCheckedAndEventsOfNoKindRefused) {
  auto events = TypicalEvents(100, 1);
  events[60].mask = kind::kIsDir;  // a flag, not a kind
  const std::string frame = EncodeBatch("mdt0", 0, 100, events);
  ASSERT_TRUE(Decode(frame).ok());
  std::vector<EncodedChunk> chunks;
  auto kept = Decode(frame, &chunks);
  ASSERT_FALSE(kept.ok());
  EXPECT_NE(kept.status().message().find("events of no kind"), std::string::npos)
      << kept.status().message();

  std::string damaged = EncodeBatch("mdt0", 0, 100, TypicalEvents(100, 1));
  damaged[damaged.size() - 3] = '\x7f';  // inside the last event's attrs
  const bool decodes = Decode(damaged).ok();
  EXPECT_EQ(Decode(damaged, &chunks).ok(), decodes);
}

// Events passed on in the chunks they were stored as decode as if encoded whole.
TEST(WireRoundTrip, EventsWithReadyChunksAreTheEventsWithThoseChunksInside) {
  const auto ring = TypicalEvents(6000, 101);
  std::vector<const Event*> pointers;
  for (const auto& e : ring) pointers.push_back(&e);
  std::string first, second;  // events [0, 300) and [1000, 5096): either end and the middle
  store::EncodeChunk(std::span<const Event>(ring).first(300), first);
  store::EncodeChunk(std::span<const Event>(ring).subspan(1000, store::kMaxChunkEvents), second);
  const std::span<const Event* const> all(pointers);
  const std::vector<EventRun> runs{{{}, first, 101, 300},
                                   {all.subspan(300, 700), {}, 0, 0},
                                   {{}, second, 1101, store::kMaxChunkEvents},
                                   {all.subspan(1000 + store::kMaxChunkEvents), {}, 0, 0}};
  const std::string frame = EncodeEvents(100, 6100, runs);
  EXPECT_NE(frame.find(first), std::string::npos);
  EXPECT_NE(frame.find(second), std::string::npos);
  auto decoded = Decode(frame);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(std::get<Events>(*decoded).events, ring);
}

TEST(WireRoundTrip, EventsOfMaxEvents) {
  Events m{kMaxU64 - 2 * kMaxBatchEvents, kMaxU64,
           TypicalEvents(kMaxBatchEvents, kMaxU64 - 2 * kMaxBatchEvents + 1)};
  const Events out = RoundTrip(m);
  ASSERT_EQ(out.events.size(), kMaxBatchEvents);
  EXPECT_EQ(out.events, m.events);
}

TEST(WireRoundTrip, HeartbeatStatsRequestAndStats) {
  EXPECT_EQ(RoundTrip(Heartbeat{kMaxU64}).through_id, kMaxU64);
  EXPECT_EQ(RoundTrip(Heartbeat{0}).through_id, 0u);
  RoundTrip(StatsRequest{});
  EXPECT_EQ(Encode(StatsRequest{}).size(), 4u);
  const std::string json = R"({"events_committed":12,"consumers":{"a":{"acked":3}}})";
  EXPECT_EQ(RoundTrip(Stats{json}).json, json);
  EXPECT_EQ(RoundTrip(Stats{""}).json, "");
}

TEST(WireRoundTrip, ErrorKeepsEveryCodeAndUnknownOnes) {
  for (uint32_t code = 1; code <= 8; ++code) {
    const Error out = RoundTrip(Error{static_cast<ErrorCode>(code), code * 1000ull,
                                      "ids 1\xe2\x80\x93" + std::to_string(code) + " are gone"});
    EXPECT_EQ(static_cast<uint32_t>(out.code), code);
    EXPECT_EQ(out.position, code * 1000ull);
    EXPECT_EQ(out.message, "ids 1\xe2\x80\x93" + std::to_string(code) + " are gone");
  }
  EXPECT_EQ(RoundTrip(Error{static_cast<ErrorCode>(kMaxU32), kMaxU64, ""}).position, kMaxU64);
}

TEST(WireRoundTrip, EncodeAppendsToExistingBytes) {
  std::string out = "prefix";
  Encode(Heartbeat{3}, out);
  EXPECT_EQ(out.substr(0, 6), "prefix");
  EXPECT_EQ(out.substr(6), Encode(Heartbeat{3}));
}

TEST(WireRoundTrip, HeaderBytesAreMagicVersionType) {
  const std::string frame = Encode(Heartbeat{300});
  ASSERT_EQ(frame.size(), 6u);
  EXPECT_EQ(static_cast<uint8_t>(frame[0]), 0xF7);
  EXPECT_EQ(static_cast<uint8_t>(frame[1]), 0x4D);
  EXPECT_EQ(static_cast<uint8_t>(frame[2]), 2);
  EXPECT_EQ(static_cast<uint8_t>(frame[3]), 0x92);
  EXPECT_EQ(static_cast<uint8_t>(frame[4]), 0xAC);  // 300 = 0b10'0101100: 0xAC 0x02
  EXPECT_EQ(static_cast<uint8_t>(frame[5]), 0x02);
}

TEST(WireRoundTrip, EventsFrameIsByteExactAsInTheProtocolDocument) {
  // docs/protocol.md section 4.4.
  Event a;
  a.id = 10;
  a.ts_ns = 1000;
  a.mask = kind::kCreate;
  a.root = "/r";
  a.path = "/r/a";
  a.source = "s";
  a.attrs = R"({"x":1,"y":2})";
  Event b = a;
  b.id = 12;
  b.ts_ns = 999;
  b.mask = kind::kDelete;
  b.path = "/r/b";
  b.attrs = R"({"x":1,"y":3})";
  const std::string expected(
      "\xF7\x4D\x02\x91\x09\x0C\x02\x0A\x02\x35\x00\x02"
      "\xD0\x0F\x80\x02\x00\x00\x02\x2F\x72\x01\x01\x73\x00\x04\x2F\x72\x2F\x61"
      "\x02\x00\x06{\"x\":1\x00\x06\"y\":2}"
      "\x01\x80\x04\x00\x00\x01\x03\x01\x62\x02\x01\x02\x04\x02\x33\x7D",
      63);
  EXPECT_EQ(Encode(Events{9, 12, {a, b}}), expected);
  EXPECT_EQ(RoundTrip(Events{9, 12, {a, b}}).events, (std::vector<Event>{a, b}));
}

}  // namespace
}  // namespace fathom::wire
