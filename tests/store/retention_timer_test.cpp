// Retention on a timer: an idle store drops expired events without a batch committing, and
// the timer's transactions take turns with a busy writer's.
//
// Nothing waits for a time and then asserts: tests wait (with a generous bound that only
// guards against a hang) for the timer to have completed runs, then check what those runs must
// have done.
#include "store/retention_timer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "support/temp_dir.h"
#include "support/thread_nice.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::IdRange;
using testing::Ids;
using testing::MakeBatch;
using testing::OpenOrDie;
using testing::ReaderOptions;
using testing::ReplayAll;
using testing::WriterOptions;

constexpr int64_t kHourNs = int64_t{3600} * 1'000'000'000;

// Waits until the timer has completed `runs` runs; false if that takes absurdly long (a hang).
bool WaitForRuns(const store::RetentionTimer& timer, uint64_t runs) {
  const auto guard = std::chrono::steady_clock::now() + 120s;
  while (timer.Counts().runs < runs) {
    if (std::chrono::steady_clock::now() > guard) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(RetentionTimer, AnIdleStoreDropsExpiredEventsWithinAnInterval) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  auto writer = OpenOrDie(WriterOptions(db));  // unbounded: it removes nothing itself
  ASSERT_NE(writer, nullptr);
  StoreOptions bounded = WriterOptions(db);
  bounded.max_age = 3600s;
  bounded.retention_interval = 20ms;
  auto timer = store::RetentionTimer::Start(bounded);
  ASSERT_TRUE(timer.ok()) << timer.status().message();

  auto fresh = MakeBatch(5, 0, "fresh");
  auto old = MakeBatch(40, 0, "old", NowNs() - 2 * kHourNs);
  ASSERT_TRUE(writer->Append(old).ok());
  ASSERT_TRUE(writer->Append(fresh).ok());
  // Nothing appends any more. A run that started after the appends (the second one to
  // complete from here, at the latest) has removed every expired event.
  const uint64_t runs = (*timer)->Counts().runs;
  ASSERT_TRUE(WaitForRuns(**timer, runs + 2)) << "the retention thread never ran";
  EXPECT_EQ(Ids(ReplayAll(*writer)), IdRange(41, 45));
  EXPECT_EQ(writer->FirstId().value(), 41u);
  EXPECT_EQ((*timer)->Counts().removed, 40u);
  EXPECT_EQ((*timer)->Counts().failures, 0u);
}

TEST(RetentionTimer, AppliesMaxEventsToAStoreThatHoldsMoreThanItsNewBound) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto writer = OpenOrDie(WriterOptions(db));
    ASSERT_NE(writer, nullptr);
    for (int i = 0; i < 3; ++i) {
      auto batch = MakeBatch(60'000);  // more than one bounded step (50,000 ids)
      ASSERT_TRUE(writer->Append(batch).ok());
    }
  }
  StoreOptions bounded = WriterOptions(db);
  bounded.max_events = 1000;
  bounded.retention_interval = 20ms;
  auto timer = store::RetentionTimer::Start(bounded);
  ASSERT_TRUE(timer.ok()) << timer.status().message();
  ASSERT_TRUE(WaitForRuns(**timer, 1));
  auto reader = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->FirstId().value(), 179'001u) << "one run applies the bound in full";
  EXPECT_EQ(ReplayAll(*reader).size(), 1000u);
}

// Through EventStore: a bounded writer that receives nothing still drops what expires.
TEST(RetentionTimer, ABoundedStoreThatReceivesNothingDropsExpiredEvents) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  StoreOptions bounded = WriterOptions(db);
  bounded.max_age = 3600s;
  bounded.retention_interval = 20ms;
  auto idle = OpenOrDie(bounded);
  ASSERT_NE(idle, nullptr);
  {
    // Another writer (a second process, say) appends events that are already expired.
    auto other = OpenOrDie(WriterOptions(db));
    ASSERT_NE(other, nullptr);
    auto old = MakeBatch(30, 0, "old", NowNs() - 2 * kHourNs);
    ASSERT_TRUE(other->Append(old).ok());
  }
  const auto guard = std::chrono::steady_clock::now() + 120s;
  while (idle->FirstId().value() != 0 && std::chrono::steady_clock::now() < guard) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(idle->FirstId().value(), 0u) << "every event was expired and removed";
  EXPECT_EQ(idle->LastId().value(), 30u);
}

TEST(RetentionTimer, TakesTurnsWithABusyWriterWithoutErrorsOrGaps) {
  testing::TempDir dir;
  StoreOptions options = WriterOptions(dir / "events.db");
  options.max_events = 5000;
  options.retention_interval = 1ms;  // as often as it can
  auto store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  uint64_t total = 0;
  for (int i = 0; i < 200; ++i) {
    auto batch = MakeBatch(97, total);
    Status s = store->Append(batch);
    ASSERT_TRUE(s.ok()) << s.message();
    total += 97;
  }
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(total - 4999, total));
}

TEST(RetentionTimer, NoThreadWithoutBoundsOrWithAZeroInterval) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto writer = OpenOrDie(WriterOptions(db));
    ASSERT_NE(writer, nullptr);
    auto old = MakeBatch(10, 0, "old", NowNs() - 2 * kHourNs);
    ASSERT_TRUE(writer->Append(old).ok());
  }
  StoreOptions off = WriterOptions(db);
  off.max_age = 3600s;
  off.retention_interval = 0ms;
  auto store = OpenOrDie(off);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(testing::NiceOfThread("retention"), std::nullopt);
  EXPECT_EQ(store->FirstId().value(), 1u) << "only an append or Prune() removes them";
}

}  // namespace
}  // namespace fathom
