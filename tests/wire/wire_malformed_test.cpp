// Hostile and damaged frames give an error naming the problem, never a crash or a read
// outside the frame (the suite also runs under ASan+UBSan).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/event_chunk.h"
#include "core/varint.h"
#include "wire/wire_messages.h"
#include "wire/wire_test_events.h"

namespace fathom::wire {
namespace {

using ::testing::HasSubstr;
using testing::TypicalEvents;

std::string Header(uint8_t type, uint8_t version = kWireVersion) {
  return std::string{static_cast<char>(kMagic0), static_cast<char>(kMagic1),
                     static_cast<char>(version), static_cast<char>(type)};
}

// The start of a Batch frame from collector "c" covering positions (0, count] with `count`
// events: their chunks follow.
std::string BatchHead(uint64_t count) {
  std::string frame = Header(0x02);
  PutString(frame, "c");
  PutVarint(frame, 0);
  PutVarint(frame, count);
  PutVarint(frame, count);
  return frame;
}

// The error message of decoding `frame`, which must fail.
std::string DecodeError(std::string_view frame) {
  auto decoded = Decode(frame);
  EXPECT_FALSE(decoded.ok()) << "decoded a malformed frame";
  return decoded.ok() ? "" : decoded.status().message();
}

std::vector<std::string> OneValidFrameOfEachType() {
  auto events = TypicalEvents(4100, 21);  // two chunks
  return {
      Encode(Hello{"mdt0"}),
      Encode(Welcome{1u << 20}),
      Encode(Batch{"mdt0", 3, 4103, TypicalEvents(4100)}),
      Encode(BatchAck{4103, 21, 4120}),
      Encode(Subscribe{"n", true, 20, "/lustre", false, kind::kCreate, 100}),
      Encode(Subscribed{20, 1, 4120}),
      Encode(Ack{30, 64}),
      Encode(Events{20, 4120, events}),
      Encode(Heartbeat{4120}),
      Encode(StatsRequest{}),
      Encode(Stats{R"({"a":1})"}),
      Encode(Error{ErrorCode::kPurged, 9, "ids 1-8 are gone"}),
  };
}

TEST(WireMalformed, TruncationAtEveryByteFailsCleanly) {
  for (const std::string& frame : OneValidFrameOfEachType()) {
    ASSERT_TRUE(Decode(frame).ok());
    // Every prefix of the small frames; for the big ones, every prefix within the first
    // 300 bytes and around the chunk boundaries, plus a stride through the rest.
    for (size_t n = 0; n < frame.size(); n += (n < 300 || frame.size() - n < 300) ? 1 : 97) {
      auto decoded = Decode(std::string_view(frame).substr(0, n));
      ASSERT_FALSE(decoded.ok()) << "prefix of " << n << " of " << frame.size() << " bytes decoded";
      EXPECT_THAT(decoded.status().message(), HasSubstr("wire: "));
    }
  }
}

TEST(WireMalformed, TruncatedBatchNamesTheMissingField) {
  const std::string frame = Encode(Batch{"c", 1, 2, {}});
  EXPECT_THAT(DecodeError(frame.substr(0, 7)),
              HasSubstr("wire: Batch: field to_position runs past the end of the frame"));
}

TEST(WireMalformed, EmptyAndShortFramesNameTheHeader) {
  EXPECT_THAT(DecodeError(""), HasSubstr("frame of 0 bytes is shorter than the 4-byte header"));
  EXPECT_THAT(DecodeError("\xF7\x4D\x01"), HasSubstr("shorter than the 4-byte header"));
}

TEST(WireMalformed, BadMagicIsRefused) {
  EXPECT_THAT(DecodeError("GET / HTTP/1.1\r\n"), HasSubstr("wire: bad magic 0x47 0x45"));
}

TEST(WireMalformed, BadVersionNamesTheVersion) {
  const std::string frame = Header(0x92, 3) + "\x05";
  EXPECT_THAT(DecodeError(frame), HasSubstr("unsupported protocol version 3"));
  EXPECT_FALSE(PeekType(frame).ok());
  EXPECT_THAT(DecodeError(Header(0x92, 0) + "\x05"), HasSubstr("protocol version 0"));
}

TEST(WireMalformed, VersionOneFramesAndChunksAreStillRead) {
  // A version 1 Batch: its chunk holds the count first and attrs whole.
  std::string frame = Header(0x02, 1);
  PutString(frame, "c");
  PutVarint(frame, 4);   // from_position
  PutVarint(frame, 5);   // to_position
  PutVarint(frame, 1);   // count
  const std::string chunk("\x01\x02\x02\x00\x00\x02/r\x01\x01s\x00\x04/r/a\x02{}", 20);
  PutString(frame, chunk);
  auto decoded = Decode(frame);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  const auto& batch = std::get<Batch>(decoded.value());
  ASSERT_EQ(batch.events.size(), 1u);
  EXPECT_EQ(batch.events[0].ts_ns, 1);
  EXPECT_EQ(batch.events[0].mask, 2u);
  EXPECT_EQ(batch.events[0].root, "/r");
  EXPECT_EQ(batch.events[0].source, "s");
  EXPECT_EQ(batch.events[0].path, "/r/a");
  EXPECT_EQ(batch.events[0].attrs, "{}");
}

TEST(WireMalformed, UnknownTypeNamesTheType) {
  EXPECT_THAT(DecodeError(Header(0x42)), HasSubstr("wire: unknown message type 0x42"));
  EXPECT_THAT(PeekType(Header(0x00)).status().message(), HasSubstr("unknown message type 0x00"));
}

TEST(WireMalformed, PeekTypeNeedsOnlyAValidHeader) {
  auto type = PeekType(Header(0x02) + "garbage");
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(*type, Type::kBatch);
  EXPECT_THAT(PeekType("\xF7\x4D").status().message(), HasSubstr("shorter than the 4-byte header"));
}

TEST(WireMalformed, TrailingBytesAreRefused) {
  EXPECT_THAT(DecodeError(Encode(Heartbeat{5}) + "x"),
              HasSubstr("wire: Heartbeat: 1 trailing bytes after the last field"));
  EXPECT_THAT(DecodeError(Encode(StatsRequest{}) + "ab"), HasSubstr("StatsRequest: 2 trailing"));
  EXPECT_THAT(DecodeError(Encode(Batch{"c", 0, 3, TypicalEvents(3)}) + "z"),
              HasSubstr("wire: Batch: 1 trailing bytes"));
}

TEST(WireMalformed, FrameOverTheLimitIsRefusedUnread) {
  const std::string huge(kMaxFrameBytes + 1, '\0');
  EXPECT_THAT(DecodeError(huge), HasSubstr("frame of 67108865 bytes exceeds the limit of 67108864"));
  EXPECT_FALSE(PeekType(huge).ok());
}

TEST(WireMalformed, BatchEventCountOverTheLimit) {
  std::string frame = Header(0x02);
  PutString(frame, "c");
  PutVarint(frame, 0);
  PutVarint(frame, 1);
  PutVarint(frame, 9999999);
  EXPECT_THAT(DecodeError(frame), HasSubstr("wire: Batch: event count 9999999 exceeds 65536"));
}

TEST(WireMalformed, EventCountLargerThanTheBytesLeftAllocatesNothing) {
  std::string frame = Header(0x91);
  PutVarint(frame, 0);
  PutVarint(frame, 100000);
  PutVarint(frame, 65536);
  frame += std::string(100, '\x01');
  EXPECT_THAT(DecodeError(frame),
              HasSubstr("wire: Events: event count 65536 cannot fit in the 100 bytes left"));
}

TEST(WireMalformed, VarintLongerThan64BitsIsRefused) {
  std::string frame = Header(0x81) + std::string(9, '\xff') + "\x02";
  EXPECT_THAT(DecodeError(frame), HasSubstr("wire: Welcome: field position is a varint longer than 64 bits"));
  frame = Header(0x81) + std::string(12, '\x80') + "\x00";
  EXPECT_THAT(DecodeError(frame), HasSubstr("longer than 64 bits"));
  // The largest value fits exactly in ten bytes.
  frame = Header(0x81) + std::string(9, '\xff') + "\x01";
  auto decoded = Decode(frame);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(std::get<Welcome>(*decoded).position, UINT64_MAX);
}

TEST(WireMalformed, ThirtyTwoBitFieldOverflowIsRefused) {
  std::string frame = Header(0x11);
  PutVarint(frame, 1);
  PutVarint(frame, 1ull << 32);
  EXPECT_THAT(DecodeError(frame), HasSubstr("wire: Ack: field credit is 4294967296, more than 32 bits"));
}

TEST(WireMalformed, StringLongerThanTheFrameIsRefused) {
  std::string frame = Header(0x01);
  PutVarint(frame, 1ull << 40);
  frame += "abc";
  EXPECT_THAT(DecodeError(frame),
              HasSubstr("wire: Hello: field collector has length 1099511627776 but only 3 bytes remain"));
}

TEST(WireMalformed, SubscribeWithUnknownFlagsIsRefused) {
  std::string frame = Encode(Subscribe{});
  frame[5] = static_cast<char>(frame[5] | 0x10);  // after the empty name
  EXPECT_THAT(DecodeError(frame), HasSubstr("wire: Subscribe: unknown flag bits 0x10"));
}

TEST(WireMalformed, BatchEndingBeforeItStartsIsRefused) {
  EXPECT_THAT(DecodeError(Encode(Batch{"c", 9, 8, {}})),
              HasSubstr("wire: Batch: to_position 8 is before from_position 9"));
}

TEST(WireMalformed, BatchAckWithFirstIdAfterLastIdIsRefused) {
  EXPECT_THAT(DecodeError(Encode(BatchAck{1, 5, 4})), HasSubstr("first_id 5 is after last_id 4"));
}

TEST(WireMalformed, EventsEndingBeforeTheyStartAreRefused) {
  EXPECT_THAT(DecodeError(Encode(Events{10, 9, {}})),
              HasSubstr("wire: Events: through_id 9 is before after_id 10"));
}

TEST(WireMalformed, EventIdOutsideTheRangeIsRefused) {
  EXPECT_THAT(DecodeError(Encode(Events{10, 20, TypicalEvents(1, 10)})),
              HasSubstr("event id 10 lies outside (10, 20]"));
  EXPECT_THAT(DecodeError(Encode(Events{10, 20, TypicalEvents(2, 20)})),
              HasSubstr("event id increment 1 after id 20 is zero or passes through_id 20"));
}

TEST(WireMalformed, RepeatedEventIdIsRefused) {
  auto events = TypicalEvents(2, 5);
  events[1].id = 5;
  EXPECT_THAT(DecodeError(Encode(Events{0, 9, events})),
              HasSubstr("event id increment 0 after id 5 is zero"));
}

TEST(WireMalformed, ChunkHoldingMoreEventsThanTheListIsRefused) {
  const auto events = TypicalEvents(3);
  std::string chunk;
  store::EncodeChunk(events, chunk);
  std::string frame = BatchHead(2);
  PutString(frame, chunk);
  frame += std::string(40, '\0');
  EXPECT_THAT(DecodeError(frame),
              HasSubstr("wire: Batch: event chunk 0 does not start with an event count of 1..2"));
}

TEST(WireMalformed, ChunkShortOfTheListNeedsAnotherChunk) {
  const auto events = TypicalEvents(3);
  std::string chunk;
  store::EncodeChunk(std::span(events).first(2), chunk);
  std::string frame = BatchHead(3);
  PutString(frame, chunk);
  PutString(frame, "");  // an empty chunk where 1 event is left
  frame += std::string(40, '\0');
  EXPECT_THAT(DecodeError(frame),
              HasSubstr("wire: Batch: event chunk 1 does not start with an event count of 1..1"));
}

TEST(WireMalformed, ListsSplitIntoChunksOfAnySizeDecode) {
  const auto events = TypicalEvents(5);
  std::string frame = BatchHead(5);
  for (auto [begin, n] : {std::pair<size_t, size_t>{0, 2}, {2, 1}, {3, 2}}) {
    std::string chunk;
    store::EncodeChunk(std::span(events).subspan(begin, n), chunk);
    PutString(frame, chunk);
  }
  auto decoded = Decode(frame);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  auto got = std::get<Batch>(decoded.value()).events;
  auto want = events;
  for (auto& e : want) e.id = 0;
  EXPECT_EQ(got, want);
}

TEST(WireMalformed, ChunkWithTrailingBytesIsRefused) {
  const auto events = TypicalEvents(2);
  std::string chunk;
  store::EncodeChunk(events, chunk);
  std::string frame = BatchHead(2);
  PutString(frame, chunk + "!");
  EXPECT_THAT(DecodeError(frame), HasSubstr("event chunk 0 has trailing bytes after its 2 events"));
}

TEST(WireMalformed, DamagedEventNamesItsIndex) {
  const auto events = TypicalEvents(3);
  std::string chunk;
  store::EncodeChunk(events, chunk);
  std::string frame = BatchHead(3);
  chunk.resize(chunk.size() - 3);  // the last event loses its attrs
  PutString(frame, chunk);
  EXPECT_THAT(DecodeError(frame), HasSubstr("wire: Batch: event 2 (in event chunk 0) is malformed"));
}

TEST(WireMalformed, PathPrefixSharingCannotExpandASmallFrameBeyondTheLimit) {
  // Every event repeats a 1100-byte path by sharing its prefix with the one before: 65536
  // events decode to 72 MB of strings from a frame of about 600 kB.
  std::vector<Event> events(kMaxBatchEvents);
  for (auto& e : events) e.path = std::string(1100, 'p');
  const std::string frame = Encode(Batch{"c", 0, 1, events});
  EXPECT_LT(frame.size(), 1u << 20);
  EXPECT_THAT(DecodeError(frame), HasSubstr("exceed 67108864 bytes"));
}

}  // namespace
}  // namespace fathom::wire
