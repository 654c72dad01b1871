// fathom h5 report's analysis on traces made by hand, with every figure known: hot functions
// over the programs' own calls (nested ones left out), nearest-rank percentiles and log2
// buckets, straggling calls and processes (median + 5 MAD, at least twice the median), and the
// bytes, calls and read/write switches of each dataset across processes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"
#include "h5prov/h5_format.h"

namespace fathom::h5prov {
namespace {

namespace f = format;

struct TraceBuilder {
  Trace t;
  uint64_t seq = 0;
  TraceBuilder(const std::string& file, int64_t rank, uint64_t pid) {
    t.file = file;
    t.process.rank = rank;
    t.process.pid = pid;
    Object& container = t.objects[1];
    container.id = 1;
    container.kind = "file";
    container.path = "/data/f.h5";
    Object& dataset = t.objects[2];
    dataset.id = 2;
    dataset.kind = "dataset";
    dataset.file = 1;
    dataset.path = "/grp/ds";
  }
  TraceBuilder& Add(uint8_t op, uint64_t duration, uint64_t object = 0, uint64_t file_bytes = 0,
                    uint64_t parent = 0) {
    Call c;
    c.op = op;
    c.seq = ++seq;
    c.parent = parent;
    c.duration = duration;
    c.object = object;
    c.has_data = file_bytes > 0;
    c.file_bytes = file_bytes;
    t.calls.push_back(c);
    return *this;
  }
};

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

}  // namespace
}  // namespace fathom::h5prov
