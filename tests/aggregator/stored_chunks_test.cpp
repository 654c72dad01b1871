// A real aggregator stores collectors' chunks and passes them on to consumers as they came
// when they are large, and encodes the rest again; every consumer still gets exactly the
// events its filter selects, and the store holds every event intact.
#include <gtest/gtest.h>

#include "aggregator/aggregator_harness.h"
#include "aggregator/commit_worker.h"
#include "aggregator/mailbox.h"
#include "aggregator/replay_worker.h"
#include "core/varint.h"
#include "fathom/store.h"
#include "store/event_chunk.h"
#include "store/store_test_util.h"

namespace fathom::testing {
namespace {

// An aggregator with two live consumers: `reader_` granted everything, `alice_` /data/a only.
class StoredChunksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Subscribe(reader_);
    Subscribe(alice_);
  }
  static void Subscribe(RawClient& c) {
    c.Send(wire::Subscribe{});
    auto m = c.ReceiveSkippingHeartbeats();
    ASSERT_TRUE(m && std::holds_alternative<wire::Subscribed>(*m));
  }

  TempDir dir_;
  TestKeys keys_;
  std::string store_ = dir_ / "events.db";
  TestAggregator agg_{SecureOptions(keys_, store_)};
  RawClient reader_{agg_.endpoint(), &keys_.reader, keys_.server.public_key};
  RawClient alice_{agg_.endpoint(), &keys_.alice, keys_.server.public_key};
  RawClient collector_{agg_.endpoint(), &keys_.collector, keys_.server.public_key};
};

// Events alternating between /data/a and /data/b, with Lustre-like attrs.
std::vector<Event> Alternating(size_t n, size_t start = 0) {
  std::vector<Event> events;
  for (size_t i = start; i < start + n; ++i) {
    Event e = MakeEvent((i % 2 == 0 ? "/data/a/f" : "/data/b/f") + std::to_string(i), kind::kCreate);
    e.attrs = R"({"fid":"[0x200000401:0x)" + std::to_string(i) + R"(:0x0]","mdt":0})";
    events.push_back(std::move(e));
  }
  return events;
}

// A Batch frame holding `events` in chunks of `chunk_events` (a collector may cut them
// anywhere; fathom's encoder fills chunks of store::kMaxChunkEvents).
std::string BatchInChunksOf(size_t chunk_events, const std::vector<Event>& events,
                            std::vector<std::string>& chunks) {
  std::string frame{static_cast<char>(wire::kMagic0), static_cast<char>(wire::kMagic1),
                    static_cast<char>(wire::kWireVersion), static_cast<char>(wire::Type::kBatch)};
  PutString(frame, "mdt0");
  PutVarint(frame, 0);
  PutVarint(frame, events.size());
  PutVarint(frame, events.size());
  for (size_t begin = 0; begin < events.size(); begin += chunk_events) {
    chunks.emplace_back();
    store::EncodeChunk(std::span<const Event>(events).subspan(begin, chunk_events), chunks.back());
    PutString(frame, chunks.back());
  }
  return frame;
}

void ExpectSameEvents(const std::vector<Event>& got, const std::vector<Event>& sent,
                      uint64_t first_id) {
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < got.size(); ++i) {
    Event want = sent[i];
    want.id = first_id + i;
    ASSERT_EQ(got[i], want) << "event " << i;
  }
}

// What a consumer received of `n` events: how many of `chunks` came byte for byte inside its
// Events messages, and whether each message continued the one before.
struct Received {
  std::vector<Event> events;
  size_t chunks_passed_on = 0;
  size_t messages = 0;
  bool contiguous = true;
};
Received ReceiveCountingChunks(RawClient& c, size_t n, const std::vector<std::string>& chunks) {
  Received r;
  uint64_t through = 0;
  while (r.events.size() < n) {
    auto raw = c.ReceiveFrame(10s);
    if (!raw) {
      ADD_FAILURE() << "the consumer received " << r.events.size() << " events";
      break;
    }
    auto m = wire::Decode(*raw);
    if (!m.ok()) {
      ADD_FAILURE() << m.status().message();
      break;
    }
    auto* got = std::get_if<wire::Events>(&*m);
    if (got == nullptr) continue;
    r.contiguous = r.contiguous && got->after_id == through;
    through = got->through_id;
    ++r.messages;
    for (const auto& chunk : chunks) r.chunks_passed_on += raw->find(chunk) != std::string::npos ? 1 : 0;
    for (auto& e : got->events) r.events.push_back(std::move(e));
  }
  return r;
}

TEST_F(StoredChunksTest, LargeChunksAreStoredAndSentOnAsTheCollectorEncodedThem) {

  const auto events = Alternating(1000);
  static_assert(500 >= aggregator::kMinChunkKept);
  std::vector<std::string> chunks;
  const std::string frame = BatchInChunksOf(500, events, chunks);
  collector_.SendRaw(frame);
  auto answer = collector_.Receive(10s);
  ASSERT_TRUE(answer && std::holds_alternative<wire::BatchAck>(*answer));

  // Two rows of 500, not one of 1000 as the aggregator would have encoded them.
  EXPECT_EQ(SqlColumn(store_, "SELECT hex(data) FROM chunks ORDER BY first_id"),
            (std::vector<std::string>{Hex(chunks[0]), Hex(chunks[1])}));

  // The reader is granted everything: its Events carry the collector's chunks byte for byte.
  const Received r = ReceiveCountingChunks(reader_, events.size(), chunks);
  EXPECT_EQ(r.chunks_passed_on, 2u);
  ExpectSameEvents(r.events, events, 1);

  // Alice is granted /data/a only: half of the chunk's events, encoded for her.
  auto d = ReceiveThrough(alice_, 0, 1000, /*ack=*/true);
  ASSERT_EQ(d.events.size(), 500u);
  for (size_t i = 0; i < d.events.size(); ++i) {
    EXPECT_EQ(d.events[i].id, 2 * i + 1);
    EXPECT_EQ(d.events[i].path, events[2 * i].path);
    EXPECT_EQ(d.events[i].attrs, events[2 * i].attrs);
  }
}

TEST_F(StoredChunksTest, BatchesOfEverySizeArriveIntactLiveAndFromTheStore) {
  std::vector<Event> sent;
  for (size_t n : {10, 300, 5000, 1, 255, 256, 4097, 50}) {
    auto batch = Alternating(n, sent.size());
    const uint64_t from = sent.size();
    sent.insert(sent.end(), batch.begin(), batch.end());
    auto answer = SendBatch(collector_, "mdt0", from, sent.size(), std::move(batch));
    ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer));
  }
  auto all = ReceiveThrough(reader_, 0, sent.size(), /*ack=*/true);
  EXPECT_TRUE(all.contiguous);
  ExpectSameEvents(all.events, sent, 1);

  auto mine = ReceiveThrough(alice_, 0, sent.size(), /*ack=*/true);
  std::vector<Event> under_a;
  for (size_t i = 0; i < sent.size(); i += 2) under_a.push_back(sent[i]);
  ASSERT_EQ(mine.events.size(), under_a.size());
  for (size_t i = 0; i < under_a.size(); ++i) {
    EXPECT_EQ(mine.events[i].id, 2 * i + 1);
    EXPECT_EQ(mine.events[i].path, under_a[i].path);
  }

  StoreOptions read_only;
  read_only.path = store_;
  read_only.read_only = true;
  auto store = OpenOrDie(read_only);
  ASSERT_NE(store, nullptr);
  ExpectSameEvents(ReplayAll(*store), sent, 1);
  EXPECT_EQ(IntegrityCheck(store_), std::vector<std::string>{"ok"});
}

// A consumer behind the ring is served from the store the same way: the stored chunks pass on
// byte for byte when its filter selects everything, and a filtered consumer gets its events.
TEST(StoredChunksReplayTest, ReplayedChunksPassOnAsStored) {
  TempDir dir;
  TestKeys keys;
  const std::string store = dir / "events.db";
  auto options = SecureOptions(keys, store);
  options.ring_capacity = 100;  // the ring keeps only the last chunk
  TestAggregator agg(options);
  RawClient collector{agg.endpoint(), &keys.collector, keys.server.public_key};
  const auto events = Alternating(9000);  // more than one message holds
  std::vector<std::string> chunks;
  collector.SendRaw(BatchInChunksOf(500, events, chunks));
  auto answer = collector.Receive(10s);
  ASSERT_TRUE(answer && std::holds_alternative<wire::BatchAck>(*answer));

  RawClient reader{agg.endpoint(), &keys.reader, keys.server.public_key};
  wire::Subscribe since_zero;
  since_zero.has_since = true;
  reader.Send(since_zero);
  auto m = reader.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Subscribed>(*m));
  const Received r = ReceiveCountingChunks(reader, events.size(), chunks);
  EXPECT_EQ(r.chunks_passed_on, 18u);  // 17 replayed from the store, the last from the ring
  EXPECT_GE(r.messages, 3u);
  EXPECT_TRUE(r.contiguous);
  ExpectSameEvents(r.events, events, 1);

  RawClient alice{agg.endpoint(), &keys.alice, keys.server.public_key};
  alice.Send(since_zero);
  m = alice.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Subscribed>(*m));
  auto d = ReceiveThrough(alice, 0, 9000, /*ack=*/true);
  EXPECT_TRUE(d.contiguous);
  ASSERT_EQ(d.events.size(), 4500u);
  for (size_t i = 0; i < d.events.size(); ++i) EXPECT_EQ(d.events[i].path, events[2 * i].path);
}

// A store written by `fathom store recover` has gaps (ids lost to damage): a replay slice ends at
// a gap instead of numbering the chunks after it as if they followed, and a request starting in
// the gap is answered with the ids gone and the next id held.
TEST(StoredChunksReplayTest, AGapOfARecoveredStoreEndsASliceAndIsReportedGone) {
  TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(3 * store::kMaxChunkEvents);  // chunks 1.., 4097.., 8193..12288
    ASSERT_TRUE(store->Append(batch).ok());
  }
  ASSERT_EQ(SqlExec(db, "DELETE FROM chunks WHERE first_id = 4097;"
                        "CREATE TABLE lost(first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL);"
                        "INSERT INTO lost VALUES(4097, 8192)"),
            "");
  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  auto wakeup = aggregator::Wakeup::Open();
  ASSERT_TRUE(wakeup.ok());
  aggregator::Mailbox<aggregator::ReplayResult> out(wakeup.value());
  aggregator::ReplayWorker worker(std::move(reader.value()), out);
  std::thread thread([&] { worker.Run(); });
  auto slice = [&](uint64_t after) {
    aggregator::ReplayRequest request;
    request.session = 1;
    request.after_id = after;
    request.upto = 12288;
    request.max_events = 100'000;
    request.budget = 100'000;
    request.filter.grants = {"/"};
    worker.Request(request);
    for (;;) {
      auto results = out.Take();
      if (!results.empty()) return std::move(results.front());
      std::this_thread::sleep_for(1ms);
    }
  };
  auto ids = [](const aggregator::ReplayResult& r) {
    uint64_t count = 0, through = 0;
    for (const auto& m : r.messages) {
      count += m.count;
      through = m.through_id;
    }
    return std::pair<uint64_t, uint64_t>{count, through};
  };
  const auto before = slice(0);
  ASSERT_TRUE(before.status.ok()) << before.status.message();
  EXPECT_FALSE(before.gone);
  EXPECT_EQ(ids(before), (std::pair<uint64_t, uint64_t>{4096, 4096})) << "the slice ends at the gap";
  const auto gap = slice(4096);
  ASSERT_TRUE(gap.gone);
  EXPECT_EQ(*gap.gone, (std::pair<uint64_t, uint64_t>{4097, 8192}));
  EXPECT_EQ(gap.first_held, 8193u);
  const auto after = slice(8192);
  ASSERT_TRUE(after.status.ok()) << after.status.message();
  EXPECT_EQ(ids(after), (std::pair<uint64_t, uint64_t>{4096, 12288}));
  worker.Close();
  thread.join();
}

// Messages start inside a chunk when a consumer resumes from an id within it or its credit is
// smaller than a chunk: those events are decoded from the ring's chunk and sent one by one.
TEST_F(StoredChunksTest, AConsumerResumingInsideAChunkWithLittleCreditGetsEveryEventOnce) {
  const auto events = Alternating(5000);  // stored as chunks of 4096 and 904 events
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(SendBatch(collector_, "mdt0", 0, 5000, events)));
  RawClient late{agg_.endpoint(), &keys_.reader, keys_.server.public_key};
  wire::Subscribe sub;
  sub.has_since = true;
  sub.since = 1234;
  sub.credit = 300;
  late.Send(sub);
  auto m = late.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Subscribed>(*m));
  auto d = ReceiveThrough(late, 1234, 5000, /*ack=*/true, /*credit=*/300);
  EXPECT_TRUE(d.contiguous);
  ASSERT_EQ(d.events.size(), 5000u - 1234u);
  for (size_t i = 0; i < d.events.size(); ++i) {
    Event want = events[1234 + i];
    want.id = 1235 + i;
    ASSERT_EQ(d.events[i], want) << "event " << i;
  }
}

// A chunk the credit left cannot take whole waits for an Ack instead of being cut.
TEST_F(StoredChunksTest, AChunkWaitsForCreditRatherThanBeingCut) {
  const auto events = Alternating(2 * store::kMaxChunkEvents);  // two full chunks
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(
      SendBatch(collector_, "mdt0", 0, events.size(), events)));
  RawClient c{agg_.endpoint(), &keys_.reader, keys_.server.public_key};
  wire::Subscribe sub;
  sub.has_since = true;
  sub.credit = 6000;  // room for one chunk and a part of the other
  c.Send(sub);
  auto m = c.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(m && std::holds_alternative<wire::Subscribed>(*m));
  auto first = ReceiveThrough(c, 0, events.size(), /*ack=*/false, 6000, 1s);
  EXPECT_EQ(first.through, store::kMaxChunkEvents);  // nothing of the second chunk
  ASSERT_EQ(first.events.size(), store::kMaxChunkEvents);
  c.Send(wire::Ack{first.through, 6000});
  auto rest = ReceiveThrough(c, first.through, events.size(), /*ack=*/true, 6000);
  EXPECT_TRUE(rest.contiguous);
  ASSERT_EQ(rest.events.size(), store::kMaxChunkEvents);
  EXPECT_EQ(rest.events.back().id, events.size());
}

// An event that reports no kind could never reach a consumer: the whole batch is refused as
// malformed and nothing of it is stored.
TEST_F(StoredChunksTest, ABatchWithAnEventOfNoKindIsRefusedAndNothingIsStored) {
  auto events = Alternating(10);
  events[7].mask = kind::kIsDir;
  auto answer = SendBatch(collector_, "mdt0", 0, 10, events);
  auto* error = std::get_if<wire::Error>(&answer);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, wire::ErrorCode::kMalformed);
  EXPECT_NE(error->message.find("no kind"), std::string::npos) << error->message;
  EXPECT_EQ(SqlColumn(store_, "SELECT count(*) FROM chunks"), std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace fathom::testing
