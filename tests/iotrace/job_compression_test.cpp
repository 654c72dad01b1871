// CompressJob on real MPI jobs run under `fathom io run` (tests/iotrace/workloads/mpi_modes.c,
// Debian's Open MPI, 2 and 4 ranks) in Beacon's modes N-1 (segments of one shared file), N-N
// and N-M: the whole job comes back exactly, and the ranks' data runs are grouped as the
// offsets allow — one group per run of a rank, with offsets a·rank + b, where files are shared.
#include <gtest/gtest.h>

#include <set>

#include "iotrace/same_traces.h"
#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

using namespace testing;

std::vector<std::string> Mpirun(int ranks, const std::string& mode, const std::string& path) {
  return {"mpirun",
          "--allow-run-as-root",
          "--oversubscribe",
          "-np",
          std::to_string(ranks),
          Workload("mpi_modes"),
          mode,
          path};
}

// The ranks' traces with only their data runs (writes and reads at an offset, POSIX and MPI-IO).
std::vector<Trace> DataRuns(const std::vector<Trace>& traces) {
  static const std::set<uint8_t> kData = {format::kPwrite, format::kPread, format::kMpiWriteAt,
                                          format::kMpiReadAt};
  std::vector<Trace> ranks;
  for (const Trace& t : traces) {
    if (t.process.rank < 0) continue;
    Trace data = t;
    data.runs.clear();
    for (const Run& r : t.runs) {
      if (kData.count(r.op) != 0) data.runs.push_back(r);
    }
    ranks.push_back(std::move(data));
  }
  return ranks;
}

struct Compressed {
  std::vector<Trace> traces;  // the whole job, as read
  CompressionFigures job;     // of the whole job
  CompressionFigures data;    // of the ranks' data runs
};

Compressed RunAndCompress(int ranks, const std::string& mode, const std::string& path,
                          const std::string& out) {
  Compressed c;
  // A quantum longer than any run here: a loaded machine must not cut a rank's runs at a
  // quantum's end (what the groups are counted from).
  auto run = RunTraced(out, Mpirun(ranks, mode, path), {"--quantum-ms", "600000"});
  EXPECT_EQ(run.result.exit_code, 0) << run.result.err;
  c.traces = std::move(run.traces);
  const CompressedJob job = CompressJob(c.traces);
  c.job = job.figures;
  auto back = ExpandJob(job.bytes, "job.fiojob");
  EXPECT_TRUE(back.ok()) << back.status().message();
  if (back.ok()) ExpectSame(c.traces, *back);

  const std::vector<Trace> data = DataRuns(c.traces);
  const CompressedJob data_job = CompressJob(data);
  c.data = data_job.figures;
  auto data_back = ExpandJob(data_job.bytes, "data.fiojob");
  EXPECT_TRUE(data_back.ok()) << data_back.status().message();
  if (data_back.ok()) ExpectSame(data, *data_back);

  uint64_t runs = 0, operations = 0, bytes = 0;
  for (const Trace& t : c.traces) {
    runs += t.runs.size();
    operations += t.Operations();
    bytes += t.bytes;
  }
  EXPECT_EQ(c.job.processes, c.traces.size());
  EXPECT_EQ(c.job.runs, runs);
  EXPECT_EQ(c.job.operations, operations);
  EXPECT_EQ(c.job.raw_bytes, 40 * operations);
  EXPECT_EQ(c.job.first_pass_bytes, bytes);
  EXPECT_EQ(c.job.second_pass_bytes, job.bytes.size());
  EXPECT_LT(c.job.groups, runs);
  EXPECT_LT(c.job.second_pass_bytes, bytes);
  return c;
}

// Each rank makes 4 data runs (pwrite, MPI_File_write_at, pread, MPI_File_read_at) of 4
// operations of 1 MiB: 16 operations.
void ExpectDataRuns(const CompressionFigures& f, uint64_t ranks) {
  EXPECT_EQ(f.processes, ranks);
  EXPECT_EQ(f.runs, 4 * ranks);
  EXPECT_EQ(f.operations, 16 * ranks);
}

TEST(JobCompression, SegmentsOfOneSharedFileAreOneGroupPerRunWithOffsetsARankPlusB) {
  for (int ranks : {2, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    fathom::testing::TempDir dir;
    const Compressed c = RunAndCompress(ranks, "n1", dir / "shared", dir / "traces");
    ExpectDataRuns(c.data, ranks);
    EXPECT_EQ(c.data.groups, 4u);  // the runs of a rank, each for every rank: offset 4 MiB·rank
    EXPECT_EQ(c.data.linear_groups, 4u);
  }
}

TEST(JobCompression, FilePerRankKeepsEachRanksRuns) {
  for (int ranks : {2, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    fathom::testing::TempDir dir;
    const Compressed c = RunAndCompress(ranks, "nn", dir.path(), dir / "traces");
    ExpectDataRuns(c.data, ranks);
    EXPECT_EQ(c.data.groups, 4u * ranks);  // each rank's own file
    EXPECT_EQ(c.data.linear_groups, 0u);
  }
}

TEST(JobCompression, FilesOfPairsOfRanksAreOneGroupPerRunAndFile) {
  for (int ranks : {2, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    fathom::testing::TempDir dir;
    const Compressed c = RunAndCompress(ranks, "nm", dir.path(), dir / "traces");
    ExpectDataRuns(c.data, ranks);
    // Ranks 2k and 2k+1 share group<k>: 4 MiB·rank − 2k·4 MiB.
    EXPECT_EQ(c.data.groups, 4u * ranks / 2);
    EXPECT_EQ(c.data.linear_groups, 4u * ranks / 2);
  }
}

}  // namespace
}  // namespace fathom::iotrace
