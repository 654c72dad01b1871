// Lustre's server statistics text, every generation of job_stats, the generic lprocfs stats and
// brw_stats, read into values; deltas between two reads, resets and expiry.
#include "lustre/stats_text.h"

#include <gtest/gtest.h>

namespace fathom::lustre {
namespace {

constexpr uint64_t kS = 1'000'000'000;

// Lustre 2.4-2.5: integer snapshot time, read and write in bytes, "min:%8llu" glued to wide numbers.
TEST(JobStatsText, ReadsTheTwoPointFourGeneration) {
  const JobStatsText t = ParseJobStats(
      "job_stats:\n"
      "- job_id:          dd.0\n"
      "  snapshot_time:   1546300800\n"
      "  read:            { samples:           0, unit: bytes, min:       0, max:       0, sum:               0 }\n"
      "  write:           { samples:           2, unit: bytes, min:10485760, max:10485760, sum:        20971520 }\n"
      "  setattr:         { samples:           0, unit:  reqs }\n"
      "  punch:           { samples:           1, unit:  reqs }\n");
  ASSERT_TRUE(t.problems.empty()) << t.problems[0].message;
  ASSERT_EQ(t.jobs.size(), 1u);
  const JobStatsEntry& j = t.jobs[0];
  EXPECT_EQ(j.job_id, "dd.0");
  EXPECT_EQ(j.snapshot_ns, 1546300800 * kS);
  EXPECT_FALSE(j.has_start);
  const StatsCounter& w = j.counters.at("write");
  EXPECT_EQ(w.unit, "bytes");
  EXPECT_EQ(w.samples, 2u);
  EXPECT_EQ(w.min, 10485760u);
  EXPECT_EQ(w.sum, 20971520u);
  EXPECT_FALSE(w.has_sumsq);
  EXPECT_EQ(j.counters.at("punch").unit, "reqs");
  EXPECT_EQ(j.counters.at("punch").samples, 1u);
  EXPECT_FALSE(j.counters.at("punch").has_sum);
}

// 2.6-2.13: read_bytes/write_bytes; 2.14: latencies in usecs with sumsq.
TEST(JobStatsText, ReadsTheTwoPointSixAndTwoPointFourteenGenerations) {
  const JobStatsText t = ParseJobStats(
      "job_stats:\n"
      "- job_id:          ior.1000\n"
      "  snapshot_time:   1546300800\n"
      "  read_bytes:      { samples:           0, unit: bytes, min:       0, max:       0, sum:               0 }\n"
      "  write_bytes:     { samples:           1, unit: bytes, min: 1048576, max: 1048576, sum:         1048576 }\n"
      "  punch:           { samples:           0, unit:  reqs }\n"
      "- job_id:          ior.1001\n"
      "  snapshot_time:   1546300801\n"
      "  write_bytes:     { samples:          16, unit: bytes, min:  1048576, max:  1048576, sum:         16777216, "
      "sumsq:     17592186044416 }\n"
      "  write:           { samples:          16, unit: usecs, min:      410, max:     2210, sum:            14630, "
      "sumsq:           16840100 }\n");
  ASSERT_TRUE(t.problems.empty()) << t.problems[0].message;
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].counters.at("write_bytes").sum, 1048576u);
  const StatsCounter& latency = t.jobs[1].counters.at("write");
  EXPECT_EQ(latency.unit, "usecs");
  EXPECT_EQ(latency.max, 2210u);
  EXPECT_EQ(latency.sumsq, 16840100u);
  EXPECT_EQ(t.jobs[1].counters.at("write_bytes").sumsq, 17592186044416u);
}

// 2.15: the times unindented, "name   : S.N secs.nsecs" (not YAML).
TEST(JobStatsText, ReadsTheTwoPointFifteenGeneration) {
  const JobStatsText t = ParseJobStats(
      "job_stats:\n"
      "- job_id:          cp.0\n"
      "snapshot_time   : 1767225610.004211000 secs.nsecs\n"
      "start_time      : 1767225600.000000000 secs.nsecs\n"
      "elapsed_time    : 10.004211000 secs.nsecs\n"
      "  read_bytes:      { samples:           3, unit: bytes, min:     4096, max:  1048576, sum:          1052672, "
      "sumsq:  1099528404992 }\n");
  ASSERT_TRUE(t.problems.empty()) << t.problems[0].message;
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].snapshot_ns, 1767225610 * kS + 4211000);
  EXPECT_TRUE(t.jobs[0].has_start);
  EXPECT_EQ(t.jobs[0].start_ns, 1767225600 * kS);
  EXPECT_EQ(t.jobs[0].elapsed_ns, 10 * kS + 4211000);
  EXPECT_EQ(t.jobs[0].counters.at("read_bytes").samples, 3u);
}

// 2.16 and later: indented times, hist, a quoted id with \xHH escapes, and the MDT's counters.
TEST(JobStatsText, ReadsTheTwoPointSixteenGenerationWithHistogramsAndEscapedIds) {
  const JobStatsText t = ParseJobStats(
      "job_stats:\n"
      "- job_id:          \"a:b\\x01c\\\"d\"\n"
      "  snapshot_time:   1767225610.004211000 secs.nsecs\n"
      "  start_time:      1767225600.000000000 secs.nsecs\n"
      "  elapsed_time:    10.004211000 secs.nsecs\n"
      "  write_bytes:     { samples:          17, unit: bytes, min:     4096, max:  1048576, sum:         16781312, "
      "sumsq:     17592202821632, hist: { 4K: 1, 1M: 16 } }\n"
      "  open:            { samples:          12, unit: usecs, min:        3, max:      850, sum:             4100, "
      "sumsq:            900000 }\n"
      "  prealloc:        { samples:           0, unit: usecs, min:        0, max:        0, sum:                0, "
      "sumsq:                  0 }\n");
  ASSERT_TRUE(t.problems.empty()) << t.problems[0].message;
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].job_id, std::string("a:b\x01" "c\"d"));
  const StatsCounter& w = t.jobs[0].counters.at("write_bytes");
  ASSERT_EQ(w.hist.size(), 2u);
  EXPECT_EQ(w.hist[0], (std::pair<std::string, uint64_t>("4K", 1)));
  EXPECT_EQ(w.hist[1], (std::pair<std::string, uint64_t>("1M", 16)));
  EXPECT_EQ(t.jobs[0].counters.at("open").samples, 12u);
  EXPECT_EQ(t.jobs[0].counters.size(), 3u);
}

TEST(JobStatsText, ALineThatCannotBeReadIsAProblemWithItsLineAndTheRestIsRead) {
  const JobStatsText t = ParseJobStats(
      "job_stats:\n"
      "- job_id:          a\n"
      "  write_bytes:     { samples: many, unit: bytes }\n"
      "  what is this\n"
      "- job_id:          b\n"
      "  read_bytes:      { samples: 1, unit: bytes, min: 5, max: 5, sum: 5 }\n");
  ASSERT_EQ(t.problems.size(), 2u);
  EXPECT_EQ(t.problems[0].line, 3u);
  EXPECT_NE(t.problems[0].message.find("samples is not a number"), std::string::npos) << t.problems[0].message;
  EXPECT_EQ(t.problems[1].line, 4u);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[1].counters.at("read_bytes").sum, 5u);
}

TEST(JobStatsText, DeltasAreTheGrowthAndAResetOrAPurgeIsSeen) {
  const JobStatsText before = ParseJobStats(
      "- job_id: a\n  snapshot_time: 100\n  write_bytes: { samples: 2, unit: bytes, min: 1, max: 9, sum: 10, sumsq: 82 }\n"
      "- job_id: b\n  snapshot_time: 100\n  write_bytes: { samples: 5, unit: bytes, min: 1, max: 1, sum: 5 }\n"
      "- job_id: gone\n  snapshot_time: 90\n  punch: { samples: 1, unit: reqs }\n");
  const JobStatsText after = ParseJobStats(
      "- job_id: a\n  snapshot_time: 105\n  write_bytes: { samples: 5, unit: bytes, min: 1, max: 9, sum: 40, sumsq: 382 }\n"
      "- job_id: b\n  snapshot_time: 104\n  write_bytes: { samples: 1, unit: bytes, min: 7, max: 7, sum: 7 }\n"
      "- job_id: new\n  snapshot_time: 103\n  elapsed_time: 3\n  punch: { samples: 2, unit: reqs }\n");
  const JobStatsChange change = DiffJobStats(before, after);
  ASSERT_EQ(change.jobs.size(), 3u);
  EXPECT_FALSE(change.jobs[0].reset);
  EXPECT_EQ(change.jobs[0].interval_ns, 5 * kS);
  EXPECT_EQ(change.jobs[0].counters.at("write_bytes").samples, 3u);
  EXPECT_EQ(change.jobs[0].counters.at("write_bytes").sum, 30u);
  EXPECT_EQ(change.jobs[0].counters.at("write_bytes").sumsq, 300u);
  EXPECT_TRUE(change.jobs[1].reset);  // fewer samples: cleared and begun again
  EXPECT_EQ(change.jobs[1].counters.at("write_bytes").sum, 7u);
  EXPECT_FALSE(change.jobs[2].reset);  // new: all of it is growth
  EXPECT_EQ(change.jobs[2].counters.at("punch").samples, 2u);
  EXPECT_EQ(change.expired, std::vector<std::string>{"gone"});
}

TEST(LprocfsStatsText, ReadsTheCurrentAndTheOldHeaderAndEveryCounterShape) {
  const LprocfsStats now = ParseLprocfsStats(
      "snapshot_time             1767225610.004211000 secs.nsecs\n"
      "start_time                1767225600.000000000 secs.nsecs\n"
      "elapsed_time              10.004211000 secs.nsecs\n"
      "open                      1200 samples [usecs] 3 850 41000 2900000\n"
      "getattr                   30 samples [reqs]\n"
      "read_bytes                16 samples [bytes] 1048576 1048576 16777216\n");
  ASSERT_TRUE(now.problems.empty()) << now.problems[0].message;
  EXPECT_EQ(now.snapshot_ns, 1767225610 * kS + 4211000);
  EXPECT_TRUE(now.has_start);
  const StatsCounter& open = now.counters.at("open");
  EXPECT_EQ(open.samples, 1200u);
  EXPECT_EQ(open.unit, "usecs");
  EXPECT_EQ(open.min, 3u);
  EXPECT_EQ(open.max, 850u);
  EXPECT_EQ(open.sum, 41000u);
  EXPECT_EQ(open.sumsq, 2900000u);
  EXPECT_FALSE(now.counters.at("getattr").has_sum);
  EXPECT_FALSE(now.counters.at("read_bytes").has_sumsq);
  const LprocfsStats old = ParseLprocfsStats(
      "snapshot_time             1546300800.123456 secs.usecs\n"
      "req_waittime              10 samples [usec] 1 5 20 60\n"
      "bogus line\n");
  EXPECT_EQ(old.snapshot_ns, 1546300800 * kS + 123456000);
  EXPECT_FALSE(old.has_start);
  EXPECT_EQ(old.counters.at("req_waittime").sum, 20u);
  ASSERT_EQ(old.problems.size(), 1u);
  EXPECT_EQ(old.problems[0].line, 3u);
}

TEST(BrwStatsText, ReadsBlocksByNameWhateverTheirPlace) {
  const BrwStats b = ParseBrwStats(
      "snapshot_time:         1767225610.004211000 secs.nsecs\n"
      "start_time:            1767225600.000000000 secs.nsecs\n"
      "elapsed_time:          10.004211000 secs.nsecs\n"
      "\n"
      "                           read      |     write\n"
      "pages per bulk r/w     rpcs  % cum % |  rpcs        % cum %\n"
      "1:\t\t         0   0   0   |    2   4   4\n"
      "256:\t\t        12 100 100   |   40  95 100\n"
      "\n"
      "                           read      |     write\n"
      "disk I/O size          ios   % cum % |  ios         % cum %\n"
      "4K:\t\t         0   0   0   |    2   4   4\n"
      "1M:\t\t        12 100 100   |   40  95 100\n");
  ASSERT_TRUE(b.problems.empty()) << b.problems[0].message;
  EXPECT_EQ(b.snapshot_ns, 1767225610 * kS + 4211000);
  ASSERT_EQ(b.blocks.size(), 2u);
  const auto& pages = b.blocks.at("pages per bulk r/w");
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[1].bucket, "256");
  EXPECT_EQ(pages[1].read, 12u);
  EXPECT_EQ(pages[1].write, 40u);
  const auto& sizes = b.blocks.at("disk I/O size");
  EXPECT_EQ(sizes[0].bucket, "4K");
  EXPECT_EQ(sizes[0].write, 2u);
}

}  // namespace
}  // namespace fathom::lustre
