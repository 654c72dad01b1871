// fathom h5 report's analysis on traces made by hand, with every figure known: hot functions
// over the programs' own calls (nested ones left out), nearest-rank percentiles and log2
// buckets, straggling calls and processes (median + 5 MAD, at least twice the median), and the
// bytes, calls and read/write switches of each dataset across processes; collective calls
// matched across ranks, the selections of each dataset, and the timeline's buckets.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"
#include "h5prov/h5_trace_builder.h"

namespace fathom::h5prov {
namespace {

namespace f = format;
using testing::kEpochNs;
using testing::TraceBuilder;

std::vector<Trace> TwoRanks() {
  TraceBuilder a("a.fh5", 0, 10);
  a.Add(f::kFopen, 100, 1).Add(f::kDopen2, 200, 2);
  for (int i = 0; i < 3; ++i) a.Add(f::kDwrite, 1000, 2, 400);
  a.Add(f::kDread, 500, 2, 800).Add(f::kDwrite, 1000, 2, 400);
  a.Add(f::kDwrite, 999, 2, 400, /*parent=*/5);  // HDF5 calling itself: not the program's
  TraceBuilder b("b.fh5", 1, 11);
  b.Add(f::kDwrite, 1000, 2, 400).Add(f::kDwrite, 9000, 2, 400);
  return {a.t, b.t};
}

TEST(H5Report, HotFunctionsAndLatenciesCountTheProgramsOwnCalls) {
  const Report r = Analyze(TwoRanks());
  EXPECT_EQ(r.processes, 2u);
  EXPECT_EQ(r.calls, 9u);
  EXPECT_EQ(r.hdf5_ns, 14800u);
  ASSERT_EQ(r.functions.size(), 4u);
  EXPECT_EQ(r.functions[0].name, "H5Dwrite");
  EXPECT_EQ(r.functions[1].name, "H5Dread");
  EXPECT_EQ(r.functions[2].name, "H5Dopen2");
  EXPECT_EQ(r.functions[3].name, "H5Fopen");
  const Latency& w = r.functions[0].latency;
  EXPECT_EQ(w.count, 6u);
  EXPECT_EQ(w.total_ns, 14000u);
  EXPECT_DOUBLE_EQ(r.functions[0].share, 14000.0 / 14800.0);
  EXPECT_EQ(w.p50_ns, 1000u);  // the 3rd of 6
  EXPECT_EQ(w.p90_ns, 9000u);  // the 6th
  EXPECT_EQ(w.p99_ns, 9000u);
  EXPECT_EQ(w.max_ns, 9000u);
  EXPECT_EQ(w.log2_buckets, (std::map<int, uint64_t>{{9, 5}, {13, 1}}));  // [512, 1024) and [8192, 16384)
  EXPECT_EQ(r.functions[3].latency.log2_buckets, (std::map<int, uint64_t>{{6, 1}}));
}

TEST(H5Report, AStragglingCallIsNamedWithItsRankAndObject) {
  const Report r = Analyze(TwoRanks());
  EXPECT_EQ(r.straggler_calls, 1u);
  ASSERT_EQ(r.stragglers.size(), 1u);
  const Straggler& s = r.stragglers[0];
  EXPECT_EQ(s.function, "H5Dwrite");
  EXPECT_EQ(s.trace, "b.fh5");
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.pid, 11u);
  EXPECT_EQ(s.duration_ns, 9000u);
  EXPECT_EQ(s.threshold_ns, 2000u);  // median 1000, MAD 0: twice the median
  EXPECT_EQ(s.object, "/data/f.h5:/grp/ds");
  EXPECT_TRUE(r.slow_ranks.empty());  // two processes: 4,800 and 10,000 ns, within 5 MAD
}

TEST(H5Report, AProcessFarSlowerThanItsPeersIsASlowRank) {
  std::vector<Trace> traces;
  for (int rank = 0; rank < 4; ++rank) {
    TraceBuilder b("r" + std::to_string(rank) + ".fh5", rank, 100 + rank);
    b.Add(f::kDwrite, rank == 3 ? 50000 : 1000, 2, 64);
    traces.push_back(b.t);
  }
  const Report r = Analyze(traces);
  ASSERT_EQ(r.slow_ranks.size(), 1u);
  EXPECT_EQ(r.slow_ranks[0].rank, 3);
  EXPECT_EQ(r.slow_ranks[0].hdf5_ns, 50000u);
  EXPECT_EQ(r.slow_ranks[0].threshold_ns, 2000u);
}

TEST(H5Report, ADatasetAddsUpAcrossProcessesWithItsSwitchesPerProcess) {
  const Report r = Analyze(TwoRanks());
  ASSERT_EQ(r.datasets.size(), 1u);
  const DatasetReport& d = r.datasets[0];
  EXPECT_EQ(d.file, "/data/f.h5");
  EXPECT_EQ(d.path, "/grp/ds");
  EXPECT_EQ(d.writes, 6u);
  EXPECT_EQ(d.write_bytes, 2400u);
  EXPECT_EQ(d.write_ns, 14000u);
  EXPECT_EQ(d.reads, 1u);
  EXPECT_EQ(d.read_bytes, 800u);
  EXPECT_EQ(d.read_ns, 500u);
  EXPECT_EQ(d.switches, 2u);  // rank 0: write, write, write, read, write
}

TEST(H5Report, JsonCarriesEveryFigure) {
  const auto j = nlohmann::json::parse(ReportJson(Analyze(TwoRanks())));
  EXPECT_EQ(j["calls"], 9);
  EXPECT_EQ(j["functions"][0]["function"], "H5Dwrite");
  EXPECT_EQ(j["functions"][0]["p90_ns"], 9000);
  EXPECT_EQ(j["functions"][0]["log2_ns_buckets"]["13"], 1);
  EXPECT_EQ(j["stragglers"][0]["object"], "/data/f.h5:/grp/ds");
  EXPECT_EQ(j["datasets"][0]["write_bytes"], 2400);
  EXPECT_EQ(j["datasets"][0]["switches"], 2);
}

// Three ranks of one job open a file and write a dataset twice collectively; rank 2 holds up
// the second write. An independent write and a serial process's calls are not compared.
std::vector<Trace> ThreeRanksCollective() {
  std::vector<Trace> traces;
  const uint64_t open_ns[3] = {100, 900, 200}, first_ns[3] = {1000, 1100, 1200}, second_ns[3] = {1000, 1000, 9000};
  for (int rank = 0; rank < 3; ++rank) {
    TraceBuilder b("r" + std::to_string(rank) + ".fh5", rank, 10 + rank, "mpi");
    b.Add(f::kFopen, open_ns[rank], 1);
    b.Add(f::kDwrite, first_ns[rank], 2, 64).Transfer("collective");
    b.Add(f::kDwrite, 50, 2, 64).Transfer("independent");
    b.Add(f::kDwrite, second_ns[rank], 2, 64).Transfer("collective");
    traces.push_back(b.t);
  }
  TraceBuilder serial("s.fh5", -1, 99, "mpi");
  serial.Add(f::kFopen, 5000, 1);
  traces.push_back(serial.t);
  return traces;
}

TEST(H5Report, CollectiveCallsAreMatchedByFunctionObjectAndOrderAcrossRanks) {
  const CollectiveReport c = CompareCollectives(ThreeRanksCollective());
  EXPECT_EQ(c.groups, 3u);
  ASSERT_EQ(c.worst.size(), 3u);
  const CollectiveGroup& second = c.worst[0];  // the widest spread first
  EXPECT_EQ(second.job, "mpi");
  EXPECT_EQ(second.function, "H5Dwrite");
  EXPECT_EQ(second.object, "/data/f.h5:/grp/ds");
  EXPECT_EQ(second.index, 1u);
  EXPECT_EQ(second.ranks, 3u);
  EXPECT_EQ(second.min_ns, 1000u);
  EXPECT_EQ(second.median_ns, 1000u);
  EXPECT_EQ(second.max_ns, 9000u);
  EXPECT_EQ(second.spread_ns, 8000u);
  EXPECT_EQ(second.slowest_rank, 2);
  const CollectiveGroup& open = c.worst[1];
  EXPECT_EQ(open.function, "H5Fopen");
  EXPECT_EQ(open.object, "/data/f.h5");
  EXPECT_EQ(open.index, 0u);
  EXPECT_EQ(open.ranks, 3u);  // the serial process is not a rank
  EXPECT_EQ(open.min_ns, 100u);
  EXPECT_EQ(open.median_ns, 200u);
  EXPECT_EQ(open.max_ns, 900u);
  EXPECT_EQ(open.slowest_rank, 1);
  const CollectiveGroup& first = c.worst[2];
  EXPECT_EQ(first.index, 0u);
  EXPECT_EQ(first.median_ns, 1100u);
  EXPECT_EQ(first.spread_ns, 200u);
}

TEST(H5Report, AccessShapesCountEachSelectionKindAndTheCommonestHyperslabs) {
  TraceBuilder b("a.fh5", -1, 10);
  for (int i = 0; i < 3; ++i) b.Add(f::kDwrite, 10, 2, 24).Select("regular", {2, 3}, {1, 1});
  b.Add(f::kDwrite, 10, 2, 32).Select("regular", {1, 8}, {1, 1});
  b.Add(f::kDread, 10, 2, 192).Select("all");
  b.Add(f::kDread, 10, 2, 8).Select("points");
  b.Add(f::kDread, 10, 2, 16).Select("irregular");
  b.Add(f::kDwrite, 10, 2, 24).Select("regular", {2, 3}, {1, 1}).t.calls.back().failed = true;  // not counted
  const std::vector<DatasetShapes> shapes = AccessShapes({b.t});
  ASSERT_EQ(shapes.size(), 1u);
  const DatasetShapes& d = shapes[0];
  EXPECT_EQ(d.file, "/data/f.h5");
  EXPECT_EQ(d.path, "/grp/ds");
  EXPECT_EQ(d.all, 1u);
  EXPECT_EQ(d.none, 0u);
  EXPECT_EQ(d.points, 1u);
  EXPECT_EQ(d.regular, 4u);
  EXPECT_EQ(d.irregular, 1u);
  EXPECT_EQ(d.chunk, 0u);
  ASSERT_EQ(d.common.size(), 2u);
  EXPECT_EQ(d.common[0].count, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(d.common[0].block, (std::vector<uint64_t>{1, 1}));
  EXPECT_EQ(d.common[0].accesses, 3u);
  EXPECT_EQ(d.common[1].count, (std::vector<uint64_t>{1, 8}));
  EXPECT_EQ(d.common[1].accesses, 1u);
}

TEST(H5Report, TheTimelineSplitsCallsBetweenBucketsOfOneTwoOrFiveTimesAPowerOfTen) {
  TraceBuilder a("a.fh5", 0, 10);
  a.At(1000).Add(f::kFopen, 30, 1).Add(f::kDwrite, 50, 2, 64);  // [1000, 1030) metadata, [1030, 1080) write
  TraceBuilder b("b.fh5", 1, 11);
  b.At(1900).Add(f::kDread, 100, 2, 64);  // [1900, 2000): the run is 1000 ns long
  const Timeline tl = BuildTimeline({a.t, b.t});
  EXPECT_EQ(tl.start_wall_ns, kEpochNs + 1000);
  EXPECT_EQ(tl.bucket_ns, 20u);  // 1000 ns in at most 50 buckets
  EXPECT_EQ(tl.buckets, 50u);
  ASSERT_EQ(tl.processes.size(), 2u);
  const std::vector<TimelineBucket>& first = tl.processes[0].buckets;
  ASSERT_EQ(first.size(), 50u);
  EXPECT_EQ(first[0].meta_ns, 20u);
  EXPECT_EQ(first[1].meta_ns, 10u);
  EXPECT_EQ(first[1].write_ns, 10u);
  EXPECT_EQ(first[2].write_ns, 20u);
  EXPECT_EQ(first[3].write_ns, 20u);
  EXPECT_EQ(first[4].write_ns + first[4].meta_ns + first[4].read_ns, 0u);
  const std::vector<TimelineBucket>& second = tl.processes[1].buckets;
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(second[i].read_ns, i >= 45 ? 20u : 0u) << i;
  EXPECT_EQ(tl.processes[1].rank, 1);
}

TEST(H5Report, JsonCarriesCollectivesShapesAndTimeline) {
  const auto j = nlohmann::json::parse(ReportJson(Analyze(ThreeRanksCollective())));
  EXPECT_EQ(j["collectives"]["groups"], 3);
  EXPECT_EQ(j["collectives"]["worst"][0]["spread_ns"], 8000);
  EXPECT_EQ(j["collectives"]["worst"][0]["slowest_rank"], 2);
  EXPECT_EQ(j["shapes"][0]["path"], "/grp/ds");
  EXPECT_EQ(j["timeline"]["processes"].size(), 4u);
  EXPECT_EQ(j["timeline"]["buckets"].get<uint64_t>(), j["timeline"]["processes"][0]["write_ns"].size());
}

}  // namespace
}  // namespace fathom::h5prov
