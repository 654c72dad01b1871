// The job analysis' rules on traces built by hand: Darshan's size buckets and sequentiality,
// alignment, Beacon's mode vote and sharing classes, phases, and the findings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fathom/iotrace.h"
#include "iotrace/analysis/job_pieces.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using analysis::AccessRun;
using analysis::CountSequential;
using analysis::UnalignedOffsets;

constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kMiB = 1 << 20;

TEST(SizeBuckets, FollowDarshansBoundsSoThatOneMebibyteIsInTheHundredKToOneMBucket) {
  EXPECT_EQ(SizeBucket(0), 0);
  EXPECT_EQ(SizeBucket(100), 0);
  EXPECT_EQ(SizeBucket(101), 1);
  EXPECT_EQ(SizeBucket(1024), 1);
  EXPECT_EQ(SizeBucket(1025), 2);
  EXPECT_EQ(SizeBucket(10240), 2);
  EXPECT_EQ(SizeBucket(10241), 3);
  EXPECT_EQ(SizeBucket(kMiB), 4);
  EXPECT_EQ(SizeBucket(kMiB + 1), 5);
  EXPECT_EQ(SizeBucket(4 * kMiB + 1), 6);
  EXPECT_EQ(SizeBucket(1024 * kMiB), 8);
  EXPECT_EQ(SizeBucket(1024 * kMiB + 1), 9);
  EXPECT_STREQ(SizeBucketName(4), "100K_1M");
}

TEST(Sequentiality, ASequentialRunFromOffsetZeroIsSequentialAndConsecutiveButForItsFirst) {
  const SequentialCounts c = CountSequential({{0, 0, 10, 127, 10}});
  EXPECT_EQ(c.ops, 127u);
  EXPECT_EQ(c.sequential, 126u);
  EXPECT_EQ(c.consecutive, 126u);
}

TEST(Sequentiality, AStrideLargerThanTheSizeIsSequentialButNotConsecutive) {
  const SequentialCounts c = CountSequential({{0, 0, 8192, 1000, 4096}});
  EXPECT_EQ(c.sequential, 999u);
  EXPECT_EQ(c.consecutive, 0u);
}

TEST(Sequentiality, RunsAreTakenInTimeOrderAndBackwardStepsAreNeither) {
  // Written in time order: 4 blocks at 8 KiB (second), then 4 at 0 (first in time).
  const SequentialCounts c = CountSequential({{200, 8192, 1024, 4, 1024}, {100, 0, 1024, 4, 1024}});
  // 0,1K,2K,3K: 3 + 3; then 8K after 3K+1K-1: sequential, not consecutive; then 3 + 3.
  EXPECT_EQ(c.sequential, 7u);
  EXPECT_EQ(c.consecutive, 6u);
  const SequentialCounts back = CountSequential({{0, 3072, -1024, 4, 1024}});
  EXPECT_EQ(back.sequential, 1u);  // the first, beyond Darshan's initial last byte 0
  EXPECT_EQ(back.consecutive, 0u);
}

TEST(Alignment, CountsTheOffsetsOfARunThatAreNotMultiplesOfFourKibibytes) {
  EXPECT_EQ(UnalignedOffsets(0, 4096, 1000, 4096), 0u);
  EXPECT_EQ(UnalignedOffsets(512, 4096, 1000, 4096), 1000u);
  EXPECT_EQ(UnalignedOffsets(0, 1, 8193, 4096), 8193u - 3u);  // 0, 4096, 8192
  EXPECT_EQ(UnalignedOffsets(0, 2048, 7, 4096), 3u);          // 0, 4096, 8192, 12288 aligned
  EXPECT_EQ(UnalignedOffsets(8192, -4096, 3, 4096), 0u);
}

TEST(ModeVote, FollowsBeaconsThresholds) {
  EXPECT_EQ(VoteMode({}), "none");
  EXPECT_EQ(VoteMode({{"N-N", 10}}), "N-N");
  EXPECT_EQ(VoteMode({{"N-N", 60}, {"N-1", 40}}), "N-N");
  EXPECT_EQ(VoteMode({{"N-N", 50}, {"N-1", 50}}), "mixed");
  EXPECT_EQ(VoteMode({{"N-N", 34}, {"N-1", 33}, {"N-M", 33}}), "N-N");
  EXPECT_EQ(VoteMode({{"N-N", 30}, {"N-1", 30}, {"N-M", 30}, {"1-1", 10}}), "mixed");
  EXPECT_EQ(VoteMode({{"N-N", 0}, {"N-1", 5}}), "N-1");
}

// A trace of one process writing `blocks` 1 MiB blocks to `path` in second `second`.
Trace Writer(uint64_t pid, const std::string& path, uint64_t ino, uint64_t second, int64_t offset, uint64_t blocks,
             uint64_t io_ns = 1000) {
  Trace t;
  t.file = "t" + std::to_string(pid);
  t.has_process = true;
  t.process.pid = pid;
  t.process.host = "h";
  t.process.job = "j";
  t.process.anchor_realtime_ns = 1'700'000'000 * kSecond;
  t.process.anchor_monotonic_ns = 0;
  t.process.quantum_ns = kSecond;
  t.end = End::kExit;
  t.objects[1] = {7, ino, path};
  Run r;
  r.tid = pid;
  r.op = f::kPwrite;
  r.target = 1;
  r.t_first = second * kSecond;
  r.t_last = second * kSecond + blocks - 1;
  r.count = blocks;
  r.has_offset = true;
  r.offset = offset;
  r.stride = static_cast<int64_t>(kMiB);
  r.size = kMiB;
  r.result = static_cast<int64_t>(kMiB);
  r.duration_sum = io_ns;
  t.runs.push_back(r);
  return t;
}

TEST(JobAnalysis, ProcessesSharingOneFileAreNToOneAndTheSharedWriteIsAFinding) {
  auto report = AnalyzeJob({Writer(1, "/data/out", 5, 0, 0, 4), Writer(2, "/data/out", 5, 0, 4 * kMiB, 4)}, {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->io_processes, 2u);
  EXPECT_EQ(report->files, 1u);
  EXPECT_EQ(report->posix.write_bytes, 8 * kMiB);
  EXPECT_EQ(report->posix.write_ops, 8u);
  EXPECT_EQ(report->write_sizes[4], 8u);
  EXPECT_EQ(report->write_mode.mode, "N-1");
  EXPECT_EQ(report->mode, "N-1");
  EXPECT_EQ(report->writes.sequential, 7u);  // all but process 1's first, at byte 0
  ASSERT_FALSE(report->findings.empty());
  EXPECT_EQ(report->findings[0].kind, "shared-file-writes");
}

TEST(JobAnalysis, AFilePerProcessIsNToNAndAGroupSharingIsNToMAndTheVolumeDecides) {
  // Three processes: two share file a (2 MiB in all), one writes file b alone (6 MiB).
  auto report = AnalyzeJob({Writer(1, "/d/a", 1, 0, 0, 1), Writer(2, "/d/a", 1, 0, kMiB, 1),
                            Writer(3, "/d/b", 2, 0, 0, 6)},
                           {});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->write_mode.volume.at("N-M"), 2 * kMiB);
  EXPECT_EQ(report->write_mode.volume.at("N-N"), 6 * kMiB);
  EXPECT_EQ(report->write_mode.mode, "N-N");  // 75 % of the volume, over half of two modes
  auto alone = AnalyzeJob({Writer(1, "/d/a", 1, 0, 0, 2)}, {});
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->mode, "1-1");
}

TEST(JobAnalysis, SecondsOfIoSeparatedByMoreThanTheGapAreTwoPhasesEachWithItsMode) {
  // Second 0: two processes share a file; seconds 10: each writes its own.
  auto report = AnalyzeJob({Writer(1, "/d/s", 1, 0, 0, 2), Writer(2, "/d/s", 1, 0, 2 * kMiB, 2),
                            Writer(1, "/d/p1", 2, 10, 0, 2), Writer(2, "/d/p2", 3, 10, 0, 2)},
                           {});
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->series.size(), 11u);
  EXPECT_EQ(report->series[0].write_bytes, 4 * kMiB);
  EXPECT_EQ(report->series[5].write_bytes, 0u);
  ASSERT_EQ(report->phases.size(), 2u);
  EXPECT_EQ(report->phases[0].write.mode, "N-1");
  EXPECT_EQ(report->phases[1].write.mode, "N-N");
  EXPECT_EQ(report->phases[1].first_second - report->phases[0].first_second, 10);
  EXPECT_DOUBLE_EQ(report->peak_bandwidth, static_cast<double>(4 * kMiB));
  EXPECT_DOUBLE_EQ(report->mean_bandwidth, static_cast<double>(4 * kMiB));  // 8 MiB over 2 phase seconds
}

TEST(JobAnalysis, EachSecondSaysWhatEachLayerMovedAndDid) {
  Trace t = Writer(1, "/d/x", 1, 0, 0, 3);  // POSIX: three 1 MiB pwrites in second 0
  iotrace::Run stdio_write = t.runs[0];
  stdio_write.op = f::kFwrite;  // STDIO: two 1 MiB fwrites in second 2
  stdio_write.t_first = 2 * kSecond;
  stdio_write.t_last = 2 * kSecond + 1;
  stdio_write.count = 2;
  stdio_write.has_offset = false;
  iotrace::Run open = t.runs[0];
  open.op = f::kOpen;  // POSIX metadata: one open in second 2
  open.t_first = open.t_last = 2 * kSecond;
  open.count = 1;
  open.has_offset = false;
  open.result = 3;
  t.runs.push_back(stdio_write);
  t.runs.push_back(open);
  auto report = AnalyzeJob({t}, {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->series.size(), 3u);
  const auto posix = static_cast<size_t>(f::Layer::kPosix), stdio = static_cast<size_t>(f::Layer::kStdio);
  EXPECT_EQ(report->series[0].layers[posix].write_bytes, 3 * kMiB);
  EXPECT_EQ(report->series[0].layers[posix].data_ops, 3u);
  EXPECT_EQ(report->series[0].layers[stdio].write_bytes, 0u);
  EXPECT_EQ(report->series[2].layers[stdio].write_bytes, 2 * kMiB);
  EXPECT_EQ(report->series[2].layers[stdio].data_ops, 2u);
  EXPECT_EQ(report->series[2].layers[posix].meta_ops, 1u);
  EXPECT_EQ(report->series[2].meta_ops, 1u);
  auto json = nlohmann::json::parse(ReportJson(*report));
  EXPECT_EQ(json["series"][2]["layers"]["stdio"]["write_bytes"], 2 * kMiB);
  EXPECT_EQ(json["series"][2]["layers"]["posix"]["meta_ops"], 1);
  EXPECT_FALSE(json["series"][1]["layers"].contains("posix"));
}

TEST(JobAnalysis, ASlowProcessIsReportedAsImbalance) {
  auto report = AnalyzeJob({Writer(1, "/d/a", 1, 0, 0, 1, 100'000'000), Writer(2, "/d/b", 2, 0, 0, 1, 500'000'000)},
                           {});
  ASSERT_TRUE(report.ok());
  bool found = false;
  for (const Finding& f : report->findings) found |= f.kind == "imbalance";
  EXPECT_TRUE(found);
}

TEST(JobAnalysis, SystemFilesAreLeftOutUnlessAskedFor) {
  auto report = AnalyzeJob({Writer(1, "/usr/lib/x", 1, 0, 0, 1), Writer(1, "/var/tmp/y", 2, 0, 0, 1)}, {});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->posix.write_bytes, kMiB);
  AnalysisOptions all;
  all.all_files = true;
  auto everything = AnalyzeJob({Writer(1, "/usr/lib/x", 1, 0, 0, 1), Writer(1, "/var/tmp/y", 2, 0, 0, 1)}, all);
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(everything->posix.write_bytes, 2 * kMiB);
}

TEST(JobAnalysis, TracesOfTwoJobsAreRefusedWithBothNamed) {
  Trace other = Writer(2, "/d/a", 1, 0, 0, 1);
  other.process.job = "k";
  auto report = AnalyzeJob({Writer(1, "/d/a", 1, 0, 0, 1), other}, {});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("several jobs (j, k)"), std::string::npos) << report.status().message();
}

}  // namespace
}  // namespace fathom::iotrace
