// `fathom io report` on known workloads run under `fathom io run`: MPI jobs in each of
// Beacon's I/O modes (Debian's Open MPI, 2 and 4 ranks), and serial programs, each classified
// with its exact volumes and counts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

using namespace testing;
constexpr uint64_t kMiB = 1 << 20;

std::vector<std::string> Mpirun(int ranks, const std::string& mode, const std::string& path) {
  return {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(ranks),
          Workload("mpi_modes"), mode, path};
}

JobReport Analyze(const TracedRun& run) {
  auto report = AnalyzeJob(run.traces, {});
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? *report : JobReport{};
}

// Each rank writes and reads back 4 MiB through MPI-IO.
void ExpectMpiVolumes(const JobReport& r, uint64_t ranks) {
  EXPECT_EQ(r.io_processes, ranks);
  EXPECT_EQ(r.mpiio.write_bytes, ranks * 4 * kMiB);
  EXPECT_EQ(r.mpiio.read_bytes, ranks * 4 * kMiB);
  EXPECT_EQ(r.mpiio.write_ops, ranks * 4);
  EXPECT_EQ(r.mpiio.read_ops, ranks * 4);
  EXPECT_EQ(r.operations.at("MPI_File_open"), ranks);
  EXPECT_EQ(r.operations.at("MPI_File_close"), ranks);
}

TEST(JobReport, FilePerRankIsNToN) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", Mpirun(2, "nn", dir.path()));
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const JobReport r = Analyze(run);
  ExpectMpiVolumes(r, 2);
  EXPECT_EQ(r.files, 2u);
  EXPECT_EQ(r.write_mode.mode, "N-N");
  EXPECT_EQ(r.read_mode.mode, "N-N");
  EXPECT_EQ(r.mode, "N-N");
}

TEST(JobReport, SegmentsOfOneSharedFileAreNToOneWithItsFindings) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", Mpirun(2, "n1", dir / "shared"));
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const JobReport r = Analyze(run);
  ExpectMpiVolumes(r, 2);
  EXPECT_EQ(r.files, 1u);
  EXPECT_EQ(r.mode, "N-1");
  EXPECT_EQ(r.write_mode.volume.at("N-1"), 2 * 4 * kMiB);  // counted once, by the POSIX writes under MPI-IO
  std::set<std::string> kinds;
  for (const Finding& f : r.findings) kinds.insert(f.kind);
  EXPECT_TRUE(kinds.count("shared-file-writes"));
  EXPECT_TRUE(kinds.count("read-after-write"));
}

TEST(JobReport, PairsOfRanksSharingAFileAreNToM) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", Mpirun(4, "nm", dir.path()));
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const JobReport r = Analyze(run);
  ExpectMpiVolumes(r, 4);
  EXPECT_EQ(r.files, 2u);
  EXPECT_EQ(r.mode, "N-M");
}

TEST(JobReport, OneRankDoingAllTheIoIsOneToOne) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", Mpirun(2, "11", dir / "single"));
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const JobReport r = Analyze(run);
  EXPECT_EQ(r.io_processes, 1u);
  EXPECT_EQ(r.mpiio.write_bytes, 4 * kMiB);
  EXPECT_EQ(r.mode, "1-1");
}

TEST(JobReport, WritesOfEverySizeFromOneTo127FillDarshansSmallestBuckets) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("sizes_writer"), dir / "sizes"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const JobReport r = Analyze(run);
  EXPECT_EQ(r.posix.write_ops, 127u);
  EXPECT_EQ(r.posix.write_bytes, 8128u);
  EXPECT_EQ(r.write_sizes[0], 100u);  // 1..100
  EXPECT_EQ(r.write_sizes[1], 27u);   // 101..127
  EXPECT_EQ(r.writes.sequential, 126u);
  EXPECT_EQ(r.writes.consecutive, 126u);
  EXPECT_EQ(r.mode, "1-1");
  EXPECT_EQ(r.findings.front().kind, "small-io");
}

TEST(JobReport, AThousandFilesMadeStatedAndRemovedIsMetadataHeavy) {
  fathom::testing::TempDir dir;
  const std::string work = dir / "work";
  ASSERT_EQ(mkdir(work.c_str(), 0755), 0);
  auto run = RunTraced(dir / "traces", {Workload("meta_workload"), work});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const JobReport r = Analyze(run);
  EXPECT_EQ(r.operations.at("open"), 1000u);
  EXPECT_EQ(r.operations.at("stat"), 1005u);  // 5 of a missing name
  EXPECT_EQ(r.operations.at("unlink"), 1000u);
  EXPECT_EQ(r.meta_ops, 1000u + 1005u + 1000u + 10u + 10u + 10u);  // and mkdir, rename, rmdir
  EXPECT_GE(r.peak_meta_per_second, 1u);
  bool heavy = false;
  for (const Finding& f : r.findings) heavy |= f.kind == "metadata-heavy";
  EXPECT_TRUE(heavy);
}

// The value darshan-parser's layout gives `counter` of `path`, from --darshan-text output.
std::string DarshanValue(const std::string& text, const std::string& counter, const std::string& path) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream split(line);
    for (std::string cell; std::getline(split, cell, '\t');) cells.push_back(cell);
    if (cells.size() == 8 && cells[3] == counter && cells[5] == path) return cells[4];
  }
  return "(no " + counter + " line for " + path + ")";
}

TEST(JobReport, DarshanTextGivesDarshansCountersForPosixAndStdio) {
  fathom::testing::TempDir dir;
  const std::string sizes = dir / "sizes", stdio = dir / "stdio";
  ASSERT_EQ(RunTraced(dir / "traces", {Workload("sizes_writer"), sizes}).result.exit_code, 0);
  ASSERT_EQ(fathom::testing::Run(IoRunCommand(dir / "traces", {Workload("stdio_workload"), stdio}),
                                 std::chrono::seconds(60)).exit_code, 0);
  auto run = fathom::testing::Run({fathom::testing::FathomBinary(), "io", "report", "--darshan-text", dir / "traces/job"},
                                  std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::map<std::string, std::string> posix = {
      {"POSIX_OPENS", "1"},           {"POSIX_WRITES", "127"},         {"POSIX_READS", "0"},
      {"POSIX_BYTES_WRITTEN", "8128"}, {"POSIX_MAX_BYTE_WRITTEN", "8127"}, {"POSIX_SEQ_WRITES", "126"},
      {"POSIX_CONSEC_WRITES", "126"},  {"POSIX_SIZE_WRITE_0_100", "100"}, {"POSIX_SIZE_WRITE_100_1K", "27"},
      {"POSIX_SIZE_WRITE_1K_10K", "0"}, {"POSIX_FILE_NOT_ALIGNED", "126"}, {"POSIX_ACCESS1_COUNT", "1"}};
  for (const auto& [counter, value] : posix) EXPECT_EQ(DarshanValue(run.out, counter, sizes), value) << counter;
  const std::map<std::string, std::string> streams = {
      {"STDIO_OPENS", "2"},          {"STDIO_WRITES", "16"},       {"STDIO_READS", "12"},
      {"STDIO_SEEKS", "1"},          {"STDIO_BYTES_WRITTEN", "1016"}, {"STDIO_BYTES_READ", "516"},
      {"STDIO_MAX_BYTE_WRITTEN", "1015"}, {"STDIO_MAX_BYTE_READ", "1015"}};
  for (const auto& [counter, value] : streams) EXPECT_EQ(DarshanValue(run.out, counter, stdio), value) << counter;
  EXPECT_NE(run.out.find("#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>"),
            std::string::npos);
}

TEST(JobReport, TheCommandPrintsTheReportAsJson) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", Mpirun(2, "nn", dir.path()));
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto report = fathom::testing::Run({fathom::testing::FathomBinary(), "io", "report", "--json", dir / "traces/job"},
                                     std::chrono::seconds(60));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto j = nlohmann::json::parse(report.out);
  EXPECT_EQ(j["job"], "job");
  EXPECT_EQ(j["mode"], "N-N");
  EXPECT_EQ(j["mpiio"]["write_bytes"], 8 * kMiB);
  auto text = fathom::testing::Run({fathom::testing::FathomBinary(), "io", "report", dir / "traces/job"},
                                   std::chrono::seconds(60));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("I/O mode: N-N (reads N-N, writes N-N)"), std::string::npos) << text.out;
  auto missing = fathom::testing::Run({fathom::testing::FathomBinary(), "io", "report", dir / "nothing"},
                                      std::chrono::seconds(60));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace fathom::iotrace
