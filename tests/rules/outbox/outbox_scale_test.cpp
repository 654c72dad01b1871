// The outbox with 100,000 pending deliveries: a lease walks only what it takes.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_test_util.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

TEST(OutboxScaleTest, LeasingAHundredOfAHundredThousandPendingTakesAHundredInOrderWithBoundedMemory) {
  fathom::testing::TempDir dir;
  auto opened = Outbox::Open(dir / "outbox.db");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Outbox& outbox = **opened;
  constexpr uint64_t kDeliveries = 100'000;
  constexpr uint64_t kBatch = 10'000;
  for (uint64_t first = 1; first <= kDeliveries; first += kBatch) {
    std::vector<NewDelivery> batch;
    batch.reserve(kBatch);
    for (uint64_t e = first; e < first + kBatch; ++e) {
      batch.push_back(testing::MakeDelivery(e % 2 ? "odd" : "even", {e}, "/data/f" + std::to_string(e), 0));
    }
    ASSERT_TRUE(outbox.Record(batch, "runner", first + kBatch - 1).ok());
  }
  const RetryPolicy policy;
  uint64_t next_seq = 1;
  for (int round = 0; round < 10; ++round) {
    sqlite3_int64 used = 0;
    sqlite3_int64 peak = 0;
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &used, &peak, 1);
    auto taken = outbox.Lease(100, 1000 + round, 1'000'000'000);
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &used, &peak, 0);
    ASSERT_TRUE(taken.ok()) << taken.status().message();
    ASSERT_EQ(taken->size(), 100u);
    EXPECT_LT(peak - used, 8 << 20) << "SQLite's memory grew by " << (peak - used) << " bytes";
    for (const Delivery& d : *taken) {
      EXPECT_EQ(d.seq, next_seq++);
      // Half of the rounds leave their deliveries finished, the others running.
      if (round % 2 == 0) {
        ASSERT_TRUE(outbox.Finish(d.id, {Outcome::kSuccess, "ok", std::nullopt}, policy, 2000).ok());
      }
    }
  }
  const auto counts = outbox.Counts().value();
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].pending + counts[1].pending, kDeliveries - 1000);
  EXPECT_EQ(counts[0].succeeded + counts[1].succeeded, 500u);
  EXPECT_EQ(counts[0].running + counts[1].running, 500u);
}

}  // namespace
}  // namespace fathom::rules
