// io_job_compression_benchmark — the I/O trace's compression, pass by pass, per workload.
//
// Each workload runs under libfathom-io.so twice, as `fathom io run` sets it up: with
// FATHOM_IO_COMPRESS=0 (raw: one record per operation) and compressed (the first pass, in
// each process). Its compressed traces are then put in one job file (iotrace::CompressJob, the
// second pass, across processes) and expanded back, which must give the same traces. Printed:
// records and bytes of each pass and the ratios, beside Beacon's (Table 8: 5.4–34.6× first
// pass, 2.1–4.4× lossless second pass).
//
//   stdio: --stdio-ops one-byte fwrite then as many fread (default 2,000,000 in all)
//   small: --small-ops 64-byte write(2) then as many pread (default 200,000 in all)
//   meta:  --meta-files files created, stat'ed and unlinked (default 5,000)
//   n1:    mpi_modes n1 on --ranks ranks (default 4): segments of one shared file, MPI-IO;
//          traced as `fathom io run -- mpirun ...` does (mpirun and its helpers too), then the
//          ranks alone (as Beacon traces compute nodes) on R and on 4R ranks
//   nn:    mpi_modes nn on --ranks ranks: a file per rank, traced with mpirun
//
// Usage: io_job_compression_benchmark [--quick] [--ranks R] [--dir DIR] [--stdio-ops N]
//                                     [--small-ops N] [--meta-files N]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fathom/iotrace.h"
#include "timed_run.h"

namespace {

namespace fs = std::filesystem;
namespace io = fathom::iotrace;

struct Config {
  long stdio_ops = 2'000'000;
  long small_ops = 200'000;
  long meta_files = 5'000;
  int ranks = 4;
  std::string dir = "/dev/shm";
  std::string build;
};

std::vector<io::Trace> ReadAll(const std::string& dir) {
  std::vector<io::Trace> traces;
  auto files = io::FindTraceFiles(dir);
  if (!files.ok()) return traces;
  for (const std::string& file : *files) {
    auto trace = io::ReadTrace(file);
    if (trace.ok()) traces.push_back(std::move(*trace));
  }
  return traces;
}

// Runs `command` traced into `dir` from its argument `traced_from` on (0: the whole command;
// else what the launcher before it starts); false if it failed.
bool Traced(const Config& c, const std::string& dir, bool compress,
            const std::vector<std::string>& command, size_t traced_from) {
  const std::vector<std::string> env = {"env",
                                        "LD_PRELOAD=" + c.build + "/lib/fathom/libfathom-io.so",
                                        "FATHOM_IO=1",
                                        "FATHOM_IO_DIR=" + dir,
                                        "FATHOM_JOB_ID=bench",
                                        std::string("FATHOM_IO_COMPRESS=") + (compress ? "1" : "0")};
  std::vector<std::string> argv(command.begin(), command.begin() + traced_from);
  argv.insert(argv.end(), env.begin(), env.end());
  argv.insert(argv.end(), command.begin() + traced_from, command.end());
  const fathom::bench::TimedRun run = fathom::bench::RunTimed(argv);
  return run.started && run.exit_code == 0;
}

double Ratio(uint64_t a, uint64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0;
}

bool Run(const Config& c, const std::string& name, const std::vector<std::string>& command,
         const std::string& scratch, size_t traced_from = 0) {
  const std::string raw_dir = scratch + "/raw", first_dir = scratch + "/first";
  fs::remove_all(raw_dir);
  fs::remove_all(first_dir);
  if (!Traced(c, raw_dir, false, command, traced_from) ||
      !Traced(c, first_dir, true, command, traced_from)) {
    std::printf("%-6s the workload failed\n", name.c_str());
    return false;
  }
  uint64_t raw_bytes = 0;
  for (const io::Trace& t : ReadAll(raw_dir)) raw_bytes += t.bytes;
  const std::vector<io::Trace> traces = ReadAll(first_dir);
  const io::CompressedJob job = io::CompressJob(traces);
  const io::CompressionFigures& f = job.figures;
  auto back = io::ExpandJob(job.bytes, name + ".fiojob");
  uint64_t back_operations = 0;
  if (back.ok()) {
    for (const io::Trace& t : *back) back_operations += t.Operations();
  }
  const bool same = back.ok() && back->size() == traces.size() && back_operations == f.operations;
  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf(
      "%-9s %3llu processes %10llu ops | raw %11llu B (40 B/op %11llu B) | first %7llu runs %9llu "
      "B "
      "%8.1fx (%.1fx of 40 B/op) | second %6llu groups (%llu a*rank+b) %8llu B %5.2fx | total "
      "%.1fx%s\n",
      name.c_str(), u(f.processes), u(f.operations), u(raw_bytes), u(f.raw_bytes), u(f.runs),
      u(f.first_pass_bytes), Ratio(raw_bytes, f.first_pass_bytes), f.FirstPassRatio(), u(f.groups),
      u(f.linear_groups), u(f.second_pass_bytes), f.SecondPassRatio(),
      Ratio(raw_bytes, f.second_pass_bytes), same ? "" : "  EXPANSION DIFFERS");
  fs::remove_all(raw_dir);
  fs::remove_all(first_dir);
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "io_job_compression_benchmark: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--stdio-ops")
      c.stdio_ops = std::stol(value("--stdio-ops"));
    else if (a == "--small-ops")
      c.small_ops = std::stol(value("--small-ops"));
    else if (a == "--meta-files")
      c.meta_files = std::stol(value("--meta-files"));
    else if (a == "--ranks")
      c.ranks = std::stoi(value("--ranks"));
    else if (a == "--dir")
      c.dir = value("--dir");
    else if (a == "--quick") {
      c.stdio_ops = 20'000;
      c.small_ops = 2'000;
      c.meta_files = 200;
      c.ranks = 2;
    } else {
      std::fprintf(
          stderr,
          "usage: io_job_compression_benchmark [--quick] [--ranks R] [--dir DIR] [--stdio-ops N] "
          "[--small-ops N] [--meta-files N]\n");
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  c.build = fs::canonical(fs::path("/proc/self/exe")).parent_path().string();
  const std::string scratch = c.dir + "/fathom-io-job-bench-" + std::to_string(getpid());
  fs::create_directories(scratch + "/meta");
  fs::create_directories(scratch + "/nn");
  std::printf("Beacon (Table 8): first pass 5.4-34.6x, second pass 2.1-4.4x (lossless)\n");
  const std::string workload = c.build + "/io_workload";
  bool ok =
      Run(c, "stdio", {workload, "stdio", scratch + "/stdio.dat", std::to_string(c.stdio_ops / 2)},
          scratch);
  ok &= Run(c, "small",
            {workload, "small", scratch + "/small.dat", std::to_string(c.small_ops / 2)}, scratch);
  ok &=
      Run(c, "meta", {workload, "meta", scratch + "/meta", std::to_string(c.meta_files)}, scratch);
  const std::string mpi_modes = c.build + "/tests/io-workloads/mpi_modes";
  if (fs::exists(mpi_modes) && fathom::bench::Installed("mpirun")) {
    auto mpirun = [&](int ranks, std::vector<std::string> args) {
      std::vector<std::string> argv = {"mpirun", "--allow-run-as-root", "--oversubscribe",
                                       "-np",    std::to_string(ranks),  mpi_modes};
      argv.insert(argv.end(), args.begin(), args.end());
      return argv;
    };
    const size_t ranks_only = 5;  // the environment goes before mpi_modes
    const std::vector<std::string> n1 = {"n1", scratch + "/shared.dat"};
    ok &= Run(c, "N-1", mpirun(c.ranks, n1), scratch);
    ok &= Run(c, "N-N", mpirun(c.ranks, {"nn", scratch + "/nn"}), scratch);
    ok &= Run(c, "N-1 ranks", mpirun(c.ranks, n1), scratch, ranks_only);
    ok &= Run(c, "N-1 ranks", mpirun(4 * c.ranks, n1), scratch, ranks_only);
  } else {
    std::printf("no MPI rows: %s or mpirun is missing (build fathom_io_workloads)\n",
                mpi_modes.c_str());
  }
  fs::remove_all(scratch);
  return ok ? 0 : 1;
}
