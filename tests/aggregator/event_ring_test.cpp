// The aggregator's ring of recent chunks (src/aggregator/event_ring.h) and the Events messages
// built from chunks (src/aggregator/events_message.h): whole chunks kept and dropped, events
// decoded only on demand, chunks passed on as they are when the filter selects everything,
// messages that start inside a chunk or stop before one, filters applied event by event.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "aggregator/event_ring.h"
#include "aggregator/events_message.h"
#include "store/event_chunk.h"
#include "wire/wire_messages.h"
#include "wire/wire_test_events.h"

namespace fathom::aggregator {
namespace {

using wire::testing::TypicalEvents;

// `events` (ids from first_id on) cut into chunks of the given sizes.
std::vector<EncodedChunk> ChunksOf(const std::vector<Event>& events, std::vector<size_t> sizes) {
  std::vector<EncodedChunk> chunks;
  size_t begin = 0;
  for (size_t n : sizes) {
    chunks.push_back(store::MakeChunk(std::span<const Event>(events).subspan(begin, n)));
    begin += n;
  }
  return chunks;
}

ConsumerFilter Everything() {
  ConsumerFilter f;
  f.grants = {"/"};
  return f;
}

wire::Events Decoded(const EventsMessage& m) {
  auto decoded = wire::Decode(*m.frame);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  return decoded.ok() ? std::get<wire::Events>(*decoded) : wire::Events{};
}

TEST(EventRing, KeepsWholeChunksAndDropsTheOldestOnlyWhileTheRestHoldTheCapacity) {
  const auto events = TypicalEvents(1800, 1);
  EventRing ring(1000, 0);
  EXPECT_EQ(ring.first_id(), 1u);
  EXPECT_FALSE(ring.Holds(1));
  ring.Append(1, ChunksOf(events, {600, 600, 600}));
  EXPECT_EQ(ring.chunks(), 2u);  // 1,200 events: without the next oldest only 600 would be left
  EXPECT_EQ(ring.first_id(), 601u);
  EXPECT_EQ(ring.last_id(), 1800u);
  EXPECT_FALSE(ring.Holds(600));
  EXPECT_TRUE(ring.Holds(601));
  EXPECT_EQ(ring.IndexOf(601), 0u);
  EXPECT_EQ(ring.IndexOf(1200), 0u);
  EXPECT_EQ(ring.IndexOf(1201), 1u);
  EXPECT_EQ(ring.IndexOf(1800), 1u);
}

TEST(EventRing, DecodesAChunkOnlyWhenAskedWithItsIds) {
  const auto events = TypicalEvents(300, 501);
  EventRing ring(1u << 20, 500);
  ring.Append(501, ChunksOf(events, {100, 200}));
  EXPECT_EQ(ring.At(1).events, nullptr);
  const std::vector<Event>* second = ring.EventsOf(1);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(*second, std::vector<Event>(events.begin() + 100, events.end()));
  EXPECT_EQ(ring.EventsOf(1), second);  // kept
  EXPECT_EQ(ring.At(0).events, nullptr);

  EncodedChunk damaged = store::MakeChunk(std::span<const Event>(events).first(10));
  damaged.data = std::make_shared<const std::string>(damaged.data->substr(0, damaged.data->size() - 4));
  ring.Append(801, {damaged});
  EXPECT_EQ(ring.EventsOf(2), nullptr);
}

TEST(EventsMessage, ChunksPassOnAsTheyAreAndAMessageStopsBeforeOneItCannotHoldWhole) {
  const auto events = TypicalEvents(5000, 1);
  auto chunks = ChunksOf(events, {904, 4096});
  const std::string first = *chunks[0].data, second = *chunks[1].data;
  EventRing ring(1u << 20, 0);
  ring.Append(1, std::move(chunks));

  auto m = BuildEventsMessage(ring, 0, 5000, 4096, Everything());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->through_id, 904u);  // the second chunk does not fit beside the first
  EXPECT_EQ(m->count, 904u);
  EXPECT_EQ(m->last_event_id, 904u);
  EXPECT_NE(m->frame->find(first), std::string::npos);
  EXPECT_EQ(ring.At(0).events, nullptr);  // passed on without being decoded
  EXPECT_EQ(Decoded(*m).events, std::vector<Event>(events.begin(), events.begin() + 904));

  m = BuildEventsMessage(ring, 904, 5000, 4096, Everything());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->through_id, 5000u);
  EXPECT_NE(m->frame->find(second), std::string::npos);
  EXPECT_EQ(ring.At(1).events, nullptr);
}

TEST(EventsMessage, AMessageStartingInsideAChunkOrShortOfCreditTakesItsEventsOneByOne) {
  const auto events = TypicalEvents(5000, 1);
  EventRing ring(1u << 20, 0);
  ring.Append(1, ChunksOf(events, {904, 4096}));
  auto m = BuildEventsMessage(ring, 100, 5000, 300, Everything());  // inside the first chunk
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->through_id, 400u);
  EXPECT_EQ(m->count, 300u);
  EXPECT_EQ(Decoded(*m).events, std::vector<Event>(events.begin() + 100, events.begin() + 400));

  m = BuildEventsMessage(ring, 904, 2000, 4096, Everything());  // the end cuts the chunk
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->through_id, 2000u);
  EXPECT_EQ(Decoded(*m).events, std::vector<Event>(events.begin() + 904, events.begin() + 2000));
}

TEST(EventsMessage, AFilterSelectsEventByEventAndTheMessageCoversEveryIdItLookedAt) {
  const auto events = TypicalEvents(1000, 1);
  EventRing ring(1u << 20, 0);
  ring.Append(1, ChunksOf(events, {500, 500}));
  ConsumerFilter creates = Everything();
  creates.kinds = kind::kCreate;
  auto m = BuildEventsMessage(ring, 0, 1000, 4096, creates);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->through_id, 1000u);
  std::vector<Event> want;
  for (const auto& e : events) {
    if ((e.mask & kind::kCreate) != 0) want.push_back(e);
  }
  EXPECT_EQ(m->count, want.size());
  EXPECT_EQ(m->last_event_id, want.back().id);
  EXPECT_EQ(Decoded(*m).events, want);

  ConsumerFilter nothing = Everything();
  nothing.prefix = "/elsewhere";
  m = BuildEventsMessage(ring, 0, 1000, 4096, nothing);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->through_id, 1000u);
  EXPECT_EQ(m->count, 0u);
  EXPECT_EQ(m->last_event_id, 0u);
}

}  // namespace
}  // namespace fathom::aggregator
