// The store's parts for an aggregator, on real SQLite files: batches merged from several
// sources with all their positions, purging through an id, and durable consumers' positions.
#include <gtest/gtest.h>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using testing::IdRange;
using testing::Ids;
using testing::MakeBatch;
using testing::OpenOrDie;
using testing::Query;
using testing::ReaderOptions;
using testing::ReplayAll;
using testing::WriterOptions;

TEST(StoreForAggregator, OneBatchRecordsThePositionsOfEverySourceInIt) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(5);
  const std::vector<SourcePosition> positions = {{"mdt0", 120}, {"mdt1", 7}, {"laptop:/home", 3}};
  Status s = store->Append(batch, positions);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Ids(batch), IdRange(1, 5));
  EXPECT_EQ(store->Position("mdt0").value(), 120u);
  EXPECT_EQ(store->Position("mdt1").value(), 7u);
  EXPECT_EQ(store->Position("laptop:/home").value(), 3u);
  EXPECT_EQ(store->Position("mdt2").value(), 0u);
}

TEST(StoreForAggregator, PurgeThroughRemovesExactlyThoseIdsAndReplaySaysTheyAreGone) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(10'000);  // spans several chunks; the purge ends inside one
  ASSERT_TRUE(store->Append(batch).ok());
  Status s = store->PurgeThrough(6'001);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(store->FirstId().value(), 6'002u);
  EXPECT_EQ(store->LastId().value(), 10'000u);
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(6'002, 10'000));
  // Purging less than what is already gone changes nothing.
  ASSERT_TRUE(store->PurgeThrough(10).ok());
  EXPECT_EQ(store->FirstId().value(), 6'002u);
}

TEST(StoreForAggregator, PurgeBeyondTheNewestIdIsRefusedAndRemovesNothing) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(3);
  ASSERT_TRUE(store->Append(batch).ok());
  Status s = store->PurgeThrough(4);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("newest id is 3"), std::string::npos) << s.message();
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(1, 3));
}

TEST(StoreForAggregator, PurgeOfAHugeRangeGoesInBoundedStepsToTheEnd) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 30; ++i) {
    auto batch = MakeBatch(4'096);
    ASSERT_TRUE(store->Append(batch).ok());
  }
  ASSERT_TRUE(store->PurgeThrough(122'000).ok());  // more than one step's 50,000 ids
  EXPECT_EQ(store->FirstId().value(), 122'001u);
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(122'001, 122'880));
}

TEST(StoreForAggregator, ConsumerPositionsPersistAndNeverMoveBackwards) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    EXPECT_FALSE(store->ConsumerPosition("archiver").value().has_value());
    ASSERT_TRUE(store->SetConsumerPosition("archiver", 40).ok());
    ASSERT_TRUE(store->SetConsumerPosition("archiver", 12).ok());  // late, older ack
    ASSERT_TRUE(store->SetConsumerPosition("indexer", 7).ok());
  }
  auto store = OpenOrDie(WriterOptions(db));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->ConsumerPosition("archiver").value(), std::optional<uint64_t>(40));
  auto all = store->ConsumerPositions();
  ASSERT_TRUE(all.ok()) << all.status().message();
  const std::vector<std::pair<std::string, uint64_t>> expected = {{"archiver", 40}, {"indexer", 7}};
  EXPECT_EQ(all.value(), expected);
}

TEST(StoreForAggregator, AReaderCannotRecordConsumerPositions) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  { ASSERT_NE(OpenOrDie(WriterOptions(db)), nullptr); }
  auto reader = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(reader, nullptr);
  Status s = reader->SetConsumerPosition("archiver", 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();
}

TEST(StoreForAggregator, AReaderReadsTheConsumerPositionsAWriterRecorded) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto writer = OpenOrDie(WriterOptions(db));
    ASSERT_NE(writer, nullptr);
    std::vector<Event> batch(3);
    for (Event& e : batch) e.path = "/w/a";
    ASSERT_TRUE(writer->Append(batch).ok());
    ASSERT_TRUE(writer->SetConsumerPosition("catalog", 2).ok());
  }
  auto reader = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(reader, nullptr);
  auto all = reader->ConsumerPositions();
  ASSERT_TRUE(all.ok()) << all.status().message();
  const std::vector<std::pair<std::string, uint64_t>> expected = {{"catalog", 2}};
  EXPECT_EQ(all.value(), expected);
  EXPECT_EQ(reader->ConsumerPosition("catalog").value(), std::optional<uint64_t>(2));
  EXPECT_EQ(reader->ConsumerPosition("other").value(), std::optional<uint64_t>());
}

}  // namespace
}  // namespace fathom
