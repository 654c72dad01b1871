// The analyses on real traces, made by the real `fathom h5 run` against Debian's HDF5 and h5py:
// lineage across two jobs (an h5py writer, then an h5py reader that writes a dataset derived
// from what it read) exported by `fathom h5 lineage --prov-json`; Darshan's counters of
// known_ops (whose every HDF5 call is known) from `fathom h5 report --darshan-text`, with the
// values Darshan's definitions give (Darshan is not packaged for this system, so they are
// worked out, not compared with its output); and the collective calls of mpi_rows on 2 ranks,
// compared across the ranks in `fathom h5 report --json`.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "h5prov/h5_run.h"
#include "h5prov/h5_trace_builder.h"

namespace fathom::h5prov {
namespace {

using namespace testing;
using nlohmann::json;

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? resolved : path;
}

// Runs `fathom ARGS...` and gives back what it printed (the test fails if it failed).
std::string Fathom(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {fathom::testing::FathomBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = fathom::testing::Run(argv, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TracedRun RunJob(const std::string& out, const std::string& job, const std::vector<std::string>& command) {
  std::vector<std::string> argv = {fathom::testing::FathomBinary(), "h5", "run", "--job", job, "--out", out, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  TracedRun run;
  run.result = fathom::testing::Run(argv, std::chrono::seconds(120));
  run.traces = ReadTraces(out + "/" + job);
  return run;
}

constexpr const char* kWriter = R"(
import sys, h5py, numpy
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("grp/ds", data=numpy.arange(12, dtype="i4").reshape(3, 4))
)";

constexpr const char* kReader = R"(
import sys, h5py
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "w") as out:
    out.create_dataset("out", data=f["grp/ds"][...] * 2)
)";

// The id of the one entity or activity whose `field` is `value`.
std::string IdWith(const json& section, const char* field, const std::string& value) {
  std::string found;
  for (const auto& [id, v] : section.items()) {
    if (v.contains(field) && v[field] == value) {
      EXPECT_TRUE(found.empty()) << "two with " << field << " = " << value;
      found = id;
    }
  }
  EXPECT_FALSE(found.empty()) << "none with " << field << " = " << value;
  return found;
}

TEST(H5AnalysisRun, LineageAcrossTwoJobsIsExportedAsProvJson) {
  fathom::testing::TempDir dir;
  const std::string in = dir / "in.h5", derived = dir / "derived.h5", traces = dir / "traces";
  auto writer = RunJob(traces, "writer", {"/usr/bin/python3", "-c", kWriter, in});
  ASSERT_EQ(writer.result.exit_code, 0) << writer.result.err;
  auto reader = RunJob(traces, "reader", {"/usr/bin/python3", "-c", kReader, in, derived});
  ASSERT_EQ(reader.result.exit_code, 0) << reader.result.err;
  ASSERT_EQ(writer.traces.size(), 1u);
  ASSERT_EQ(reader.traces.size(), 1u);

  const json doc = json::parse(Fathom({"h5", "lineage", "--prov-json", traces}));
  const std::string ds = IdWith(doc["entity"], "prov:label", RealPath(in) + ":/grp/ds");
  const std::string out = IdWith(doc["entity"], "prov:label", RealPath(derived) + ":/out");
  std::map<std::string, std::string> activity_of_job;
  for (const auto& [id, v] : doc["activity"].items()) activity_of_job[id.substr(0, id.find('/', 15))] = id;
  EXPECT_EQ(doc["entity"].size(), 4u);  // two files, two datasets
  ASSERT_EQ(doc["activity"].size(), 2u);
  const std::string w = activity_of_job.at("fathom:process/writer"), r = activity_of_job.at("fathom:process/reader");
  EXPECT_EQ(doc["activity"][w]["fathom:pid"], writer.traces[0].process.pid);
  using Pairs = std::multiset<std::pair<std::string, std::string>>;
  EXPECT_EQ(ProvRelations(doc, "used", "prov:activity", "prov:entity"), (Pairs{{r, ds}}));
  EXPECT_EQ(ProvRelations(doc, "wasGeneratedBy", "prov:entity", "prov:activity"), (Pairs{{ds, w}, {out, r}}));
  EXPECT_EQ(ProvRelations(doc, "wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity"), (Pairs{{out, ds}}));
  EXPECT_EQ(doc["agent"].size(), 3u);  // the user, two jobs

  const std::string text = Fathom({"h5", "lineage", "--dataset", RealPath(in) + ":/grp/ds", traces});
  EXPECT_NE(text.find("\nWriter -> reader\n  " + RealPath(in) + ":/grp/ds: job writer pid "), std::string::npos)
      << text;
  EXPECT_NE(text.find("\nDerived datasets\n  " + RealPath(derived) + ":/out from " + RealPath(in) + ":/grp/ds by job reader"),
            std::string::npos)
      << text;
}

// darshan-parser's value of `counter` in the record named `name`: "" when there is none.
std::string DarshanValue(const std::string& text, const std::string& counter, const std::string& name) {
  size_t at = 0;
  while ((at = text.find("\t" + counter + "\t", at)) != std::string::npos) {
    const size_t value = at + counter.size() + 2, tab = text.find('\t', value);
    const size_t end = text.find('\t', tab + 1);
    if (text.compare(tab + 1, end - tab - 1, name) == 0) return text.substr(value, tab - value);
    at = tab;
  }
  return "";
}

TEST(H5AnalysisRun, DarshanCountersOfKnownOperations) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "known.h5";
  auto run = RunTraced(dir / "traces", {Workload("known_ops"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const std::string text = Fathom({"h5", "report", "--darshan-text", dir / "traces"});
  const std::string f = RealPath(file), d = f + ":/grp/data";
  // H5Fcreate, then H5Fopen: two opens, no flush, serial HDF5.
  EXPECT_EQ(DarshanValue(text, "H5F_OPENS", f), "2") << text;
  EXPECT_EQ(DarshanValue(text, "H5F_FLUSHES", f), "0");
  EXPECT_EQ(DarshanValue(text, "H5F_USE_MPIIO", f), "0");
  EXPECT_EQ(DarshanValue(text, "H5F_F_OPEN_START_TIMESTAMP", f), "0.000000");  // the first call
  // H5Dcreate2 and H5Dopen2; a 2x3 hyperslab of 4-byte ints written (24 B), then the whole 6x8
  // dataset read with H5S_ALL (192 B, in no *_SELECTS counter).
  const std::map<std::string, std::string> expected = {
      {"H5D_OPENS", "2"}, {"H5D_READS", "1"}, {"H5D_WRITES", "1"}, {"H5D_FLUSHES", "0"},
      {"H5D_BYTES_READ", "192"}, {"H5D_BYTES_WRITTEN", "24"}, {"H5D_RW_SWITCHES", "1"},
      {"H5D_REGULAR_HYPERSLAB_SELECTS", "1"}, {"H5D_IRREGULAR_HYPERSLAB_SELECTS", "0"}, {"H5D_POINT_SELECTS", "0"},
      {"H5D_MAX_READ_TIME_SIZE", "192"}, {"H5D_MAX_WRITE_TIME_SIZE", "24"}, {"H5D_SIZE_READ_AGG_100_1K", "1"},
      {"H5D_SIZE_READ_AGG_0_100", "0"}, {"H5D_SIZE_WRITE_AGG_0_100", "1"}, {"H5D_ACCESS1_ACCESS", "192"},
      {"H5D_ACCESS1_LENGTH_D1", "0"}, {"H5D_ACCESS1_COUNT", "1"}, {"H5D_ACCESS2_ACCESS", "24"},
      {"H5D_ACCESS2_LENGTH_D1", "3"}, {"H5D_ACCESS2_LENGTH_D2", "2"}, {"H5D_ACCESS2_STRIDE_D1", "1"},
      {"H5D_ACCESS2_COUNT", "1"}, {"H5D_ACCESS3_COUNT", "0"}, {"H5D_DATASPACE_NDIMS", "2"},
      {"H5D_DATASPACE_NPOINTS", "48"}, {"H5D_DATATYPE_SIZE", "4"}, {"H5D_CHUNK_SIZE_D1", "0"},
      {"H5D_USE_MPIIO_COLLECTIVE", "0"}, {"H5D_USE_DEPRECATED", "0"}, {"H5D_FASTEST_RANK", "0"},
      {"H5D_FASTEST_RANK_BYTES", "216"}};
  for (const auto& [counter, value] : expected) EXPECT_EQ(DarshanValue(text, counter, d), value) << counter;
  // The groups and the attribute are no Darshan records.
  EXPECT_EQ(DarshanValue(text, "H5D_OPENS", f + ":/grp"), "");
}

TEST(H5AnalysisRun, CollectiveCallsOfTwoRanksAreComparedAndTheirDatasetIsShared) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                                        Workload("mpi_rows"), dir / "rows.h5"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 2u);
  // Each rank's duration of each function's call, from the traces themselves.
  std::map<std::string, std::map<int64_t, uint64_t>> durations;
  for (const Trace& t : run.traces) {
    for (const Call& c : t.calls) {
      const std::string name = OpName(c.op);
      if (c.parent == 0 && (name == "H5Fcreate" || name == "H5Dcreate2" || name == "H5Dwrite" || name == "H5Fclose")) {
        durations[name][t.process.rank] = c.duration;
      }
    }
  }
  const json report = json::parse(Fathom({"h5", "report", "--json", dir / "traces/job"}));
  EXPECT_EQ(report["collectives"]["groups"], 4);  // the H5Dread of rank 0 is independent
  ASSERT_EQ(report["collectives"]["worst"].size(), 4u);
  for (const json& g : report["collectives"]["worst"]) {
    const std::map<int64_t, uint64_t>& ranks = durations[g["function"].get<std::string>()];
    ASSERT_EQ(ranks.size(), 2u) << g;
    const uint64_t lo = std::min(ranks.at(0), ranks.at(1)), hi = std::max(ranks.at(0), ranks.at(1));
    EXPECT_EQ(g["ranks"], 2);
    EXPECT_EQ(g["index"], 0);
    EXPECT_EQ(g["min_ns"], lo);
    EXPECT_EQ(g["max_ns"], hi);
    EXPECT_EQ(g["median_ns"], (lo + hi) / 2);
    EXPECT_EQ(g["spread_ns"], hi - lo);
    EXPECT_EQ(g["slowest_rank"], ranks.at(1) > ranks.at(0) ? 1 : 0);
  }
  EXPECT_EQ(report["shapes"][0]["regular"], 2);  // one row per rank
  EXPECT_EQ(report["shapes"][0]["all"], 1);      // rank 0 reads everything
  ASSERT_EQ(report["shapes"][0]["common"].size(), 1u);
  EXPECT_EQ(report["shapes"][0]["common"][0]["count"], json::array({1, 4}));
  EXPECT_EQ(report["shapes"][0]["common"][0]["accesses"], 2);
  // The timeline's buckets add up to each process's time in HDF5.
  for (const json& p : report["timeline"]["processes"]) {
    uint64_t sum = 0, expected = 0;
    for (const char* kind : {"read_ns", "write_ns", "meta_ns"}) {
      for (const json& v : p[kind]) sum += v.get<uint64_t>();
    }
    for (const Trace& t : run.traces) {
      if (t.file != p["trace"]) continue;
      for (const Call& c : t.calls) expected += c.parent == 0 ? c.duration : 0;
    }
    EXPECT_EQ(sum, expected) << p["trace"];
  }

  const std::string text = Fathom({"h5", "report", "--darshan-text", dir / "traces/job"});
  const std::string d = RealPath(dir / "rows.h5") + ":/rows";
  EXPECT_NE(text.find("\nH5D\t-1\t"), std::string::npos) << text;  // shared by both ranks
  EXPECT_EQ(DarshanValue(text, "H5D_WRITES", d), "2");
  EXPECT_EQ(DarshanValue(text, "H5D_BYTES_WRITTEN", d), "32");
  EXPECT_EQ(DarshanValue(text, "H5D_READS", d), "1");
  EXPECT_EQ(DarshanValue(text, "H5D_USE_MPIIO_COLLECTIVE", d), "1");
  EXPECT_EQ(DarshanValue(text, "H5F_USE_MPIIO", RealPath(dir / "rows.h5")), "1");
}

}  // namespace
}  // namespace fathom::h5prov
