// Pacing of fast mode (`fathom-lustre-sim fast --rate N`): the real liblustreapi.so from
// build/lustre, loaded with dlopen, hands out record i of a paced log no earlier than its due
// time epoch + i/N s, stamped with that time; its descriptor is readable exactly when a record
// is due; follow mode sleeps until then; an unlimited log is unchanged.
#include <poll.h>
#include <stdlib.h>

#include <chrono>
#include <ctime>
#include <gtest/gtest.h>
#include <string>

#include "fathom/event.h"
#include "lustre/changelog_binary.h"
#include "lustre/lustre_abi.h"
#include "lustre_sim/api/fast_log.h"
#include "lustre_sim/api/fast_mode.h"
#include "lustre_sim/state/registry.h"
#include "lustre_sim/state/sim_state.h"
#include "lustre_sim/lustreapi_loader.h"
#include "support/temp_dir.h"

namespace fathom::lustre_sim {
namespace {

uint64_t RealtimeNs() { return static_cast<uint64_t>(NowNs()); }

uint64_t ThreadCpuNs() {
  struct timespec now {};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<uint64_t>(now.tv_nsec);
}

bool Readable(int fd, int timeout_ms) {
  struct pollfd p {fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

class FastRateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("FATHOM_LUSTRE_SIM_RUNDIR", (tmp_ / "run").c_str(), 1);
    ASSERT_NO_FATAL_FAILURE(api_.Load());
  }
  void TearDown() override { (void)TeardownFastMode("ratefs"); }

  // Sets up "ratefs" (one MDT) and returns the log's epoch.
  uint64_t MakeFastFs(uint64_t rate, uint64_t records = 0) {
    FastModeConfig config{"ratefs", 1, tmp_ / "fast.state", records, rate};
    Status status = SetupFastMode(config);
    EXPECT_TRUE(status.ok()) << status.message();
    auto state = SimState::Open(tmp_ / "fast.state");
    EXPECT_TRUE(state.ok());
    if (!state.ok()) return 0;
    auto log = (*state)->GetGeneratedLog();
    EXPECT_TRUE(log.ok() && log->has_value());
    return log.ok() && log->has_value() ? (*log)->epoch_ns : 0;
  }
  void* Start(int flags) {
    void* priv = nullptr;
    EXPECT_EQ(api_.start(&priv, static_cast<changelog_send_flag>(flags), "ratefs-MDT0000", 0), 0);
    return priv;
  }
  // One record: rc, and its index and time when rc == 0.
  int Recv(void* priv, uint64_t* index, uint64_t* time_ns) {
    changelog_rec* rec = nullptr;
    int rc = api_.recv(priv, &rec);
    if (rc != 0) return rc;
    auto record = lustre::UnpackRecord(rec);
    EXPECT_TRUE(record.ok());
    *index = record.ok() ? record->index : 0;
    *time_ns = record.ok() ? record->time_ns : 0;
    api_.free_rec(&rec);
    return 0;
  }

  testing::TempDir tmp_;
  testing::LustreApi api_;
};

TEST(FastLogPacing, DueTimesAndTimestampsFollowTheRate) {
  FastLogSpec spec;
  spec.epoch_ns = 1000000000000ULL;
  spec.rate = 4000;  // one record every 250 us
  FastLog paced(spec);
  lustre::ChangelogRecord record;
  for (uint64_t i : {1ULL, 2ULL, 3999ULL, 4000ULL, 4001ULL, 123456789ULL}) {
    const uint64_t due = spec.epoch_ns + i * 250000;
    EXPECT_EQ(paced.DueNs(i), due) << i;
    EXPECT_FALSE(paced.DueBy(i, due - 1)) << i;
    EXPECT_TRUE(paced.DueBy(i, due)) << i;
    paced.RecordAt(0, i, record);
    EXPECT_EQ(record.time_ns, due) << i;
  }
  spec.rate = 0;
  FastLog unlimited(spec);
  for (uint64_t i : {1ULL, 2ULL, 1000000ULL}) {
    EXPECT_TRUE(unlimited.DueBy(i, 0)) << i;
    unlimited.RecordAt(0, i, record);
    EXPECT_EQ(record.time_ns, spec.epoch_ns + i * 1000) << i;
  }
}

TEST_F(FastRateTest, TheRateIsKeptInTheRegistryEntry) {
  MakeFastFs(25000);
  auto entry = FindRegistryEntry("ratefs");
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  EXPECT_EQ(entry->mode, "fast");
  EXPECT_EQ(entry->rate, 25000u);
}

TEST_F(FastRateTest, PacedRecordsComeNoEarlierThanDueStampedWithTheirDueTime) {
  constexpr uint64_t kRate = 2000;  // 500 us apart
  constexpr uint64_t kPeriodNs = 1000000000ULL / kRate;
  constexpr uint64_t kRecords = 600;  // 0.3 s of log
  const uint64_t epoch = MakeFastFs(kRate);
  void* priv = Start(CHANGELOG_FLAG_JOBID);
  ASSERT_NE(priv, nullptr);
  const int fd = api_.get_fd(priv);
  const uint64_t deadline = RealtimeNs() + 20000000000ULL;
  uint64_t expected = 1;
  uint64_t ends = 0;
  while (expected <= kRecords) {
    ASSERT_LT(RealtimeNs(), deadline) << "the paced log fell behind its rate at record " << expected;
    uint64_t index = 0;
    uint64_t time_ns = 0;
    const int rc = Recv(priv, &index, &time_ns);
    const uint64_t now = RealtimeNs();
    if (rc == 1) {
      ++ends;
      ASSERT_TRUE(Readable(fd, 1000)) << "the descriptor never became readable for record " << expected;
      continue;
    }
    ASSERT_EQ(rc, 0);
    ASSERT_EQ(index, expected);
    ASSERT_EQ(time_ns, epoch + index * kPeriodNs);
    ASSERT_GE(now, time_ns) << "record " << index << " handed out before it was due";
    ++expected;
  }
  // The reader caught up with the clock and was held back: the log did not come all at once.
  EXPECT_GT(ends, 0u);
  api_.fini(&priv);
}

TEST_F(FastRateTest, DescriptorIsReadableExactlyWhenARecordIsDue) {
  constexpr uint64_t kPeriodNs = 500000000ULL;  // 2 records/s
  const uint64_t epoch = MakeFastFs(2, /*records=*/3);
  void* priv = Start(CHANGELOG_FLAG_JOBID);
  ASSERT_NE(priv, nullptr);
  const int fd = api_.get_fd(priv);
  for (uint64_t i = 1; i <= 3; ++i) {
    uint64_t index = 0;
    uint64_t time_ns = 0;
    if (RealtimeNs() + 200000000ULL < epoch + i * kPeriodNs) {
      EXPECT_FALSE(Readable(fd, 0)) << "readable before record " << i << " is due";
      EXPECT_EQ(api_.in_buf(priv), 0);
      EXPECT_EQ(Recv(priv, &index, &time_ns), 1) << "record " << i << " handed out before due";
    }
    ASSERT_TRUE(Readable(fd, 2000)) << "not readable once record " << i << " is due";
    EXPECT_GE(RealtimeNs(), epoch + i * kPeriodNs);
    EXPECT_EQ(api_.in_buf(priv), 1);
    ASSERT_EQ(Recv(priv, &index, &time_ns), 0);
    EXPECT_EQ(index, i);
    EXPECT_EQ(time_ns, epoch + i * kPeriodNs);
  }
  // The finite log has ended: never readable again.
  EXPECT_FALSE(Readable(fd, 300));
  EXPECT_EQ(api_.in_buf(priv), 0);
  uint64_t index = 0;
  uint64_t time_ns = 0;
  EXPECT_EQ(Recv(priv, &index, &time_ns), 1);
  api_.fini(&priv);
}

TEST_F(FastRateTest, FollowModeSleepsUntilTheNextRecordIsDue) {
  constexpr uint64_t kPeriodNs = 50000000ULL;  // 20 records/s
  const uint64_t epoch = MakeFastFs(20);
  void* priv = Start(CHANGELOG_FLAG_JOBID | CHANGELOG_FLAG_FOLLOW);
  ASSERT_NE(priv, nullptr);
  const uint64_t cpu_before = ThreadCpuNs();
  for (uint64_t i = 1; i <= 6; ++i) {
    uint64_t index = 0;
    uint64_t time_ns = 0;
    ASSERT_EQ(Recv(priv, &index, &time_ns), 0);
    EXPECT_EQ(index, i);
    EXPECT_GE(RealtimeNs(), epoch + i * kPeriodNs) << "record " << i << " handed out before due";
  }
  // About 0.3 s of waiting: a reader that sleeps uses a tiny part of it.
  EXPECT_LT(ThreadCpuNs() - cpu_before, 60000000ULL) << "the follow-mode reader spun while waiting";
  api_.fini(&priv);
}

TEST_F(FastRateTest, UnlimitedRateHandsOutEveryRecordAtOnce) {
  const uint64_t epoch = MakeFastFs(0, /*records=*/10000);
  void* priv = Start(CHANGELOG_FLAG_JOBID);
  ASSERT_NE(priv, nullptr);
  EXPECT_TRUE(Readable(api_.get_fd(priv), 0));
  EXPECT_EQ(api_.in_buf(priv), 1);
  for (uint64_t i = 1; i <= 10000; ++i) {
    uint64_t index = 0;
    uint64_t time_ns = 0;
    ASSERT_EQ(Recv(priv, &index, &time_ns), 0);
    ASSERT_EQ(index, i);
    ASSERT_EQ(time_ns, epoch + i * 1000);
  }
  uint64_t index = 0;
  uint64_t time_ns = 0;
  EXPECT_EQ(Recv(priv, &index, &time_ns), 1);
  api_.fini(&priv);
}

}  // namespace
}  // namespace fathom::lustre_sim
