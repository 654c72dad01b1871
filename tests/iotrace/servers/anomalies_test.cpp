// FindAnomalies on samples made to measure: Beacon's rule (bandwidth below half the peers'
// mean peak while carrying 0.6 of their volume), the robust z-score of service time, quiet
// peers, too few peers, per job and across jobs; Beacon's duration buckets; the samples file.
#include <gtest/gtest.h>

#include <unistd.h>

#include "fathom/io_servers.h"
#include "support/temp_dir.h"

namespace fathom::io {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr uint64_t kMiB = 1 << 20;

// `seconds` one-second intervals of `target` moving `mib_per_second` MiB with `usecs_per_mib`
// of service time, ending at `start + i + 1`.
void Work(std::vector<ServerSample>& out, const std::string& target, const std::string& job,
          int start, int seconds, uint64_t mib_per_second, uint64_t usecs_per_mib) {
  for (int i = 0; i < seconds; ++i) {
    const int64_t ts = (start + i + 1) * kSecond;
    out.push_back({ts, kSecond, target, job, "write_bytes", "bytes", mib_per_second * 16,
                   mib_per_second * kMiB});
    out.push_back({ts, kSecond, target, job, "write", "usecs", mib_per_second * 16,
                   mib_per_second * usecs_per_mib});
  }
}

TEST(Anomalies, EqualPeersAreQuiet) {
  std::vector<ServerSample> s;
  for (int ost = 0; ost < 4; ++ost)
    Work(s, "fs-OST000" + std::to_string(ost), "", 0, 10, 100, 1000 + 10 * ost);
  EXPECT_TRUE(FindAnomalies(s, {}).empty());
}

TEST(Anomalies, ATargetThatTakesLongerForTheSameVolumeIsFlaggedByBothRules) {
  std::vector<ServerSample> s;
  for (int ost = 0; ost < 4; ++ost) {
    if (ost == 2) {
      Work(s, "fs-OST0002", "", 0, 40, 25, 40000);  // 1000 MiB in 40 s
    } else {
      Work(s, "fs-OST000" + std::to_string(ost), "", 0, 10, 100,
           1000 + 10 * ost);  // 1000 MiB in 10 s
    }
  }
  const auto found = FindAnomalies(s, {});
  ASSERT_EQ(found.size(), 1u);
  const Anomaly& a = found[0];
  EXPECT_EQ(a.target, "fs-OST0002");
  EXPECT_EQ(a.job, "");
  EXPECT_EQ(a.rule, "beacon+z-score");
  EXPECT_EQ(a.bytes, 1000 * kMiB);
  EXPECT_DOUBLE_EQ(a.avg_bw, 25.0 * kMiB);
  EXPECT_DOUBLE_EQ(a.peak_bw, 25.0 * kMiB);
  EXPECT_DOUBLE_EQ(a.peers_mean_peak_bw, 100.0 * kMiB);
  EXPECT_DOUBLE_EQ(a.peers_mean_bytes, 1000.0 * kMiB);
  EXPECT_DOUBLE_EQ(a.usecs_per_mib, 40000);
  EXPECT_EQ(a.first_ns, 0);
  EXPECT_EQ(a.last_ns, 40 * kSecond);
  EXPECT_EQ(a.duration, "1h");
  EXPECT_EQ(a.peers, 4u);
}

TEST(Anomalies, ASlowTargetThatCarriedLittleIsNotABeaconAnomaly) {
  std::vector<ServerSample> s;
  for (int ost = 0; ost < 3; ++ost)
    Work(s, "fs-OST000" + std::to_string(ost), "", 0, 10, 100, 1000 + 10 * ost);
  Work(s, "fs-OST0003", "", 0, 10, 10, 1000);  // a tenth of the volume, as fast per MiB
  EXPECT_TRUE(FindAnomalies(s, {}).empty());
}

TEST(Anomalies, JitterOfAFewMillisecondsOnFastTargetsIsNotASlowTarget) {
  std::vector<ServerSample> s;
  for (int ost = 0; ost < 4; ++ost)
    Work(s, "fs-OST000" + std::to_string(ost), "", 0, 10, 100, 940 + ost);
  Work(s, "fs-OST0004", "", 0, 10, 100, 3100);  // 3.3 times the median, 2.2 ms per MiB more
  EXPECT_TRUE(FindAnomalies(s, {}).empty());
}

TEST(Anomalies, ServiceTimeAloneFlagsByZScoreOnlyWhenItIsThreeTimesTheMedian) {
  std::vector<ServerSample> s;
  for (int ost = 0; ost < 5; ++ost)
    Work(s, "fs-OST000" + std::to_string(ost), "", 0, 10, 100, 1000 + 10 * ost);
  Work(s, "fs-OST0005", "", 0, 10, 100,
       2500);  // 2.5 times the median: statistically odd, not material
  EXPECT_TRUE(FindAnomalies(s, {}).empty());
  Work(s, "fs-OST0006", "", 0, 10, 100, 15000);
  const auto found = FindAnomalies(s, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].target, "fs-OST0006");
  EXPECT_EQ(found[0].rule, "z-score");
  EXPECT_GT(found[0].z, 3.5);
}

TEST(Anomalies, TwoTargetsCannotSayWhichIsOddAndKindsAreNotPeers) {
  std::vector<ServerSample> s;
  Work(s, "fs-OST0000", "", 0, 10, 100, 1000);
  Work(s, "fs-OST0001", "", 0, 40, 25, 40000);
  Work(s, "disk:sda", "", 0, 10, 100, 1000);
  Work(s, "disk:sdb", "", 0, 10, 100, 1000);
  EXPECT_TRUE(FindAnomalies(s, {}).empty());
}

TEST(Anomalies, JobsAreComparedWithinThemselves) {
  std::vector<ServerSample> s;
  for (int ost = 0; ost < 3; ++ost)
    Work(s, "fs-OST000" + std::to_string(ost), "ior.1", 0, 10, 100, 1000);
  Work(s, "fs-OST0003", "ior.1", 0, 40, 25, 40000);
  for (int ost = 0; ost < 4; ++ost)
    Work(s, "fs-OST000" + std::to_string(ost), "dd.2", 50, 5, 50, 1200);
  const auto found = FindAnomalies(s, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].job, "ior.1");
  EXPECT_EQ(found[0].target, "fs-OST0003");
}

TEST(Anomalies, DurationsFallInBeaconsBuckets) {
  constexpr int64_t kHour = 3600 * kSecond;
  EXPECT_EQ(DurationBucket(0), "1h");
  EXPECT_EQ(DurationBucket(kHour), "1h");
  EXPECT_EQ(DurationBucket(kHour + 1), "4h");
  EXPECT_EQ(DurationBucket(12 * kHour), "12h");
  EXPECT_EQ(DurationBucket(96 * kHour), "96h");
  EXPECT_EQ(DurationBucket(96 * kHour + 1), ">96h");
}

TEST(SampleStore, SamplesComeBackInTimeOrderWithinTheWindow) {
  testing::TempDir t;
  const std::string path = t / "samples.db";
  {
    auto store = SampleStore::Open(path, true);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE(
        (*store)
            ->Append({{2 * kSecond, kSecond, "fs-OST0001", "dd.0", "write_bytes", "bytes", 3, 4096},
                      {1 * kSecond, kSecond, "fs-MDT0000", "", "open", "usecs", 2, 17}})
            .ok());
    ASSERT_TRUE(
        (*store)->Append({{3 * kSecond, kSecond, "disk:sda", "", "read", "usecs", 1, 5}}).ok());
  }
  auto store = SampleStore::Open(path, false);
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ((*store)->Newest().value(), 3 * kSecond);
  auto read = (*store)->Read(kSecond, 2 * kSecond);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].target, "fs-MDT0000");
  EXPECT_EQ((*read)[0].sum, 17u);
  EXPECT_EQ((*read)[1].job, "dd.0");
  EXPECT_EQ((*read)[1].samples, 3u);
  EXPECT_EQ((*read)[1].interval_ns, kSecond);
}

TEST(SampleStore, AFileOfAnotherKindIsRefusedByName) {
  testing::TempDir t;
  const std::string text = t / "notes.txt";
  FILE* f = fopen(text.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("these are notes, not samples, and long enough to fill a SQLite header page......", f);
  fclose(f);
  auto store = SampleStore::Open(text, false);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().message(), text +
                                          " is not a fathom samples file (not a SQLite database): "
                                          "give the file of `fathom io servers --out`");
  auto missing = SampleStore::Open(t / "none.db", false);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("fathom io servers --out FILE"), std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace fathom::io
