// The VPIC-IO-like writer and the BD-CATS-IO-like reader (workloads/vpic_io.c, bdcats_io.c)
// under `fathom h5 run`, serial and on 2 MPI ranks: every rank's trace holds exactly the calls
// the kernels make (a group per step, 8 particle arrays per group), each write and read with
// the rank's own hyperslab (start rank × N, N floats), collective in the MPI flavour, and the
// report's bytes per dataset are those of all ranks' hyperslabs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "h5prov/h5_run.h"

namespace fathom::h5prov {
namespace {

using namespace testing;

constexpr uint64_t kParticles = 1000;  // per rank
constexpr int kSteps = 3;
const std::vector<std::string> kVariables = {"x", "y", "z", "px", "py", "pz", "id1", "id2"};

// The kernel's command: the serial build alone, the MPI build under mpirun on `ranks` ranks.
std::vector<std::string> Kernel(const std::string& name, int ranks, std::vector<std::string> args) {
  std::vector<std::string> argv;
  if (ranks > 1) argv = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(ranks)};
  argv.push_back(Workload(ranks > 1 ? name + "_mpi" : name));
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// The calls a kernel makes, in order: the file, then per step its group and the 8 arrays each
// made or opened, moved and closed.
std::vector<std::string> KernelCalls(const std::string& file_op, const std::string& group_op,
                                     const std::string& dataset_op, const std::string& data_op) {
  std::vector<std::string> calls = {file_op};
  for (int step = 0; step < kSteps; ++step) {
    calls.push_back(group_op);
    for (size_t v = 0; v < kVariables.size(); ++v) {
      calls.insert(calls.end(), {dataset_op, data_op, "H5Dclose"});
    }
    calls.push_back("H5Gclose");
  }
  calls.push_back("H5Fclose");
  return calls;
}

// Checks the traces of one kernel run on `ranks` ranks, whose groups are made or opened by
// `group_op` and whose data moves by `data_op` (H5Dwrite, H5Dread).
void ExpectKernelRecords(const std::vector<Trace>& traces, int ranks, const std::string& group_op,
                         const std::string& data_op) {
  ASSERT_EQ(traces.size(), static_cast<size_t>(ranks));  // mpirun itself never calls HDF5
  const bool writer = data_op == "H5Dwrite";
  std::set<int64_t> seen_ranks;
  for (const Trace& t : traces) {
    const int64_t rank = ranks > 1 ? t.process.rank : 0;
    seen_ranks.insert(rank);
    SCOPED_TRACE("rank " + std::to_string(rank));
    EXPECT_TRUE(t.problems.empty()) << t.problems.front();
    EXPECT_EQ(t.dropped, 0u);
    EXPECT_EQ(t.end_open_objects, 0u);
    EXPECT_EQ(t.process.flavour, ranks > 1 ? "openmpi" : "serial");
    EXPECT_EQ(OpNames(t), KernelCalls(writer ? "H5Fcreate" : "H5Fopen", group_op,
                                      writer ? "H5Dcreate2" : "H5Dopen2", data_op));
    const std::vector<Call> groups = CallsOf(t, group_op);
    ASSERT_EQ(groups.size(), static_cast<size_t>(kSteps));
    for (int step = 0; step < kSteps; ++step) {
      EXPECT_EQ(groups[step].name, "Step#" + std::to_string(step));
      EXPECT_EQ(ObjectOf(t, groups[step].object).path, "/Step#" + std::to_string(step));
    }
    const std::vector<Call> moves = CallsOf(t, data_op);
    ASSERT_EQ(moves.size(), kVariables.size() * kSteps);
    for (size_t i = 0; i < moves.size(); ++i) {
      const Call& c = moves[i];
      const std::string path = "/Step#" + std::to_string(i / kVariables.size()) + "/" + kVariables[i % kVariables.size()];
      EXPECT_FALSE(c.failed) << path;
      EXPECT_EQ(c.parent, 0u) << path;
      EXPECT_EQ(ObjectOf(t, c.object).path, path);
      EXPECT_EQ(ObjectOf(t, c.object).dims, std::vector<uint64_t>{kParticles * ranks}) << path;
      EXPECT_EQ(c.mem_bytes, kParticles * 4) << path;
      EXPECT_EQ(c.file_bytes, kParticles * 4) << path;
      EXPECT_EQ(c.selection.kind, "regular") << path;
      EXPECT_EQ(c.selection.points, kParticles) << path;
      EXPECT_EQ(c.selection.start, std::vector<uint64_t>{static_cast<uint64_t>(rank) * kParticles}) << path;
      EXPECT_EQ(c.selection.count, std::vector<uint64_t>{kParticles}) << path;
      EXPECT_EQ(c.selection.block, std::vector<uint64_t>{1}) << path;
      EXPECT_EQ(c.transfer, ranks > 1 ? "collective" : "") << path;
    }
  }
  EXPECT_EQ(seen_ranks.size(), static_cast<size_t>(ranks));

  // The report: every dataset moved all ranks' hyperslabs, once each; per step, 8 arrays.
  const Report report = Analyze(traces);
  EXPECT_TRUE(report.problems.empty());
  ASSERT_EQ(report.datasets.size(), kVariables.size() * kSteps);
  std::map<std::string, uint64_t> bytes_per_step;
  for (const DatasetReport& d : report.datasets) {
    SCOPED_TRACE(d.path);
    EXPECT_EQ(writer ? d.writes : d.reads, static_cast<uint64_t>(ranks));
    EXPECT_EQ(writer ? d.reads : d.writes, 0u);
    EXPECT_EQ(writer ? d.write_bytes : d.read_bytes, kParticles * 4 * ranks);
    EXPECT_EQ(d.switches, 0u);
    bytes_per_step[d.path.substr(0, d.path.rfind('/'))] += writer ? d.write_bytes : d.read_bytes;
  }
  ASSERT_EQ(bytes_per_step.size(), static_cast<size_t>(kSteps));
  for (const auto& [step, bytes] : bytes_per_step) EXPECT_EQ(bytes, 8 * kParticles * 4 * ranks) << step;
}

void RunWriterThenReader(int ranks) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "particles.h5";
  const auto written = RunTraced(dir / "written",
                                 Kernel("vpic_io", ranks, {"-n", std::to_string(kParticles), "-t", std::to_string(kSteps), file}));
  ASSERT_EQ(written.result.exit_code, 0) << written.result.err;
  {
    SCOPED_TRACE("vpic_io");
    ExpectKernelRecords(written.traces, ranks, "H5Gcreate2", "H5Dwrite");
  }
  // The reader checks every element it reads against what the writer wrote: exit status 0
  // means the data went through the tracer unchanged.
  const auto read = RunTraced(dir / "read", Kernel("bdcats_io", ranks, {file}));
  ASSERT_EQ(read.result.exit_code, 0) << read.result.err;
  SCOPED_TRACE("bdcats_io");
  ExpectKernelRecords(read.traces, ranks, "H5Gopen2", "H5Dread");
}

TEST(Kernels, SerialWriterAndReaderRecordEveryArrayOfEveryStep) { RunWriterThenReader(1); }

TEST(Kernels, TwoRanksWriteAndReadTheirOwnHyperslabsCollectively) { RunWriterThenReader(2); }

}  // namespace
}  // namespace fathom::h5prov
