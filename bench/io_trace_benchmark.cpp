// io_trace_benchmark — what tracing a program's I/O costs, beside the tracers Debian has.
//
// Each workload (bench/io_workload.c) runs plain, under libfathom-io.so (as `fathom io run`
// sets it up: compressed, and with --no-compress), and under strace (-f -c: counting system
// calls; -f -o FILE: a full trace). Times are the best of --repeat runs; every variant is
// reported as its wall time, its slowdown against the plain run, the cost it adds per
// operation, and, for fathom, the trace's bytes and compression ratios: the uncompressed
// trace over the compressed one, and a fixed 40 bytes per operation (Darshan's DXT record)
// over the compressed one.
//
//   stdio: --stdio-ops one-byte fwrite then as many fread (default 50,000,000 in all), tmpfs
//   small: --small-ops 64-byte write(2) then as many pread (default 400,000 in all), tmpfs
//   bigio: --bigio-mib 1 MiB writes, fsync, and as many reads (default 1024 MiB), on disk
//   meta:  --meta-files files created, stat'ed and unlinked (default 20,000), on disk
//
// Usage: io_trace_benchmark [--quick] [--repeat R] [--tmpfs DIR] [--disk DIR] [--parts a,b]
//                           [--stdio-ops N] [--small-ops N] [--bigio-mib N] [--meta-files N]
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
using fathom::bench::BestOf;
using fathom::bench::Installed;
using fathom::bench::TimedRun;

bool g_failed = false;  // a variant failed or its trace missed operations: the exit status says so

struct Config {
  long stdio_ops = 50'000'000;
  long small_ops = 400'000;
  long bigio_mib = 1024;
  long meta_files = 20'000;
  int repeat = 3;
  std::string tmpfs = "/dev/shm";
  std::string disk = "/var/tmp";
  std::vector<std::string> parts = {"stdio", "small", "bigio", "meta"};
  std::string build;
};

struct Workload {
  std::string name;
  std::vector<std::string> args;  // io_workload's
  double operations;
};

struct TraceSize {
  uint64_t bytes = 0;
  uint64_t operations = 0;
  uint64_t dropped = 0;
};

TraceSize Measure(const std::string& dir) {
  TraceSize size;
  auto files = fathom::iotrace::FindTraceFiles(dir);
  if (!files.ok()) return size;
  for (const std::string& file : *files) {
    auto trace = fathom::iotrace::ReadTrace(file);
    if (!trace.ok()) continue;
    size.bytes += trace->bytes;
    size.operations += trace->Operations();
    size.dropped += trace->Dropped();
  }
  return size;
}

std::vector<std::string> Traced(const Config& c, const std::string& dir, bool compress,
                                const std::vector<std::string>& command) {
  std::vector<std::string> argv = {"env", "LD_PRELOAD=" + c.build + "/lib/fathom/libfathom-io.so", "FATHOM_IO=1",
                                   "FATHOM_IO_DIR=" + dir, "FATHOM_JOB_ID=bench",
                                   std::string("FATHOM_IO_COMPRESS=") + (compress ? "1" : "0")};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

void Report(const char* variant, const TimedRun& run, const TimedRun& plain, double operations) {
  if (!run.started || run.exit_code != 0) {
    std::printf("  %-22s failed (exit %d)\n", variant, run.exit_code);
    g_failed = true;
    return;
  }
  const double slowdown = (run.seconds / plain.seconds - 1) * 100;
  const double per_op_us = (run.seconds - plain.seconds) / operations * 1e6;
  std::printf("  %-22s %9.3f s  %+8.2f %%  %+8.3f us/op\n", variant, run.seconds, slowdown, per_op_us);
}

void Run(const Config& c, const Workload& w, const std::string& scratch) {
  const std::string workload = c.build + "/io_workload";
  std::vector<std::string> command = {workload};
  command.insert(command.end(), w.args.begin(), w.args.end());
  std::printf("%s: %s (%.0f operations)\n", w.name.c_str(), w.args[0].c_str(), w.operations);
  const TimedRun plain = BestOf(c.repeat, [&] {
    std::vector<std::string> argv = {"env"};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
  }());
  if (!plain.started || plain.exit_code != 0) {
    std::printf("  the plain run failed (exit %d)\n", plain.exit_code);
    return;
  }
  std::printf("  %-22s %9.3f s\n", "plain", plain.seconds);
  for (const bool compress : {true, false}) {
    const std::string dir = scratch + "/traces-" + (compress ? "compressed" : "raw");
    TimedRun best;
    for (int i = 0; i < c.repeat; ++i) {
      fs::remove_all(dir);
      TimedRun run = BestOf(1, Traced(c, dir, compress, command));
      if (i == 0 || run.seconds < best.seconds) best = run;
    }
    Report(compress ? "fathom" : "fathom --no-compress", best, plain, w.operations);
    const TraceSize size = Measure(dir);
    std::printf("  %-22s %llu operations recorded, %llu dropped, %llu trace bytes (%.2f bytes/op)\n", "",
                static_cast<unsigned long long>(size.operations), static_cast<unsigned long long>(size.dropped),
                static_cast<unsigned long long>(size.bytes),
                size.operations > 0 ? static_cast<double>(size.bytes) / static_cast<double>(size.operations) : 0.0);
    if (static_cast<double>(size.operations + size.dropped) < w.operations) {
      std::printf("  %-22s the trace holds fewer operations than the workload made\n", "");
      g_failed = true;
    }
    static uint64_t compressed_bytes = 0;
    if (compress) {
      compressed_bytes = size.bytes;
    } else if (compressed_bytes > 0) {
      std::printf("  %-22s compression: %.1fx over the uncompressed trace, %.1fx over 40 B/op\n", "",
                  static_cast<double>(size.bytes) / static_cast<double>(compressed_bytes),
                  40.0 * static_cast<double>(size.operations) / static_cast<double>(compressed_bytes));
    }
    fs::remove_all(dir);
  }
  if (Installed("strace")) {
    std::vector<std::string> count = {"strace", "-f", "-c", "-o", "/dev/null"};
    count.insert(count.end(), command.begin(), command.end());
    Report("strace -f -c", BestOf(c.repeat, count), plain, w.operations);
    const std::string log = scratch + "/strace.log";
    std::vector<std::string> full = {"strace", "-f", "-qq", "-o", log};
    full.insert(full.end(), command.begin(), command.end());
    Report("strace -f -o FILE", BestOf(c.repeat, full), plain, w.operations);
    fs::remove(log);
  } else {
    std::printf("  strace is not installed: no peer figures\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "io_trace_benchmark: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--stdio-ops") c.stdio_ops = std::stol(value("--stdio-ops"));
    else if (a == "--small-ops") c.small_ops = std::stol(value("--small-ops"));
    else if (a == "--bigio-mib") c.bigio_mib = std::stol(value("--bigio-mib"));
    else if (a == "--meta-files") c.meta_files = std::stol(value("--meta-files"));
    else if (a == "--repeat") c.repeat = std::stoi(value("--repeat"));
    else if (a == "--tmpfs") c.tmpfs = value("--tmpfs");
    else if (a == "--disk") c.disk = value("--disk");
    else if (a == "--parts") {
      c.parts.clear();
      std::string list = value("--parts");
      for (size_t start = 0; start <= list.size();) {
        const size_t comma = list.find(',', start);
        c.parts.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a == "--quick") {
      c.stdio_ops = 200'000;
      c.small_ops = 20'000;
      c.bigio_mib = 8;
      c.meta_files = 500;
      c.repeat = 1;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: io_trace_benchmark [--quick] [--repeat R] [--tmpfs DIR] [--disk DIR] [--parts stdio,small,bigio,meta]\n"
                  "                          [--stdio-ops N] [--small-ops N] [--bigio-mib N] [--meta-files N]\n");
      return 0;
    } else {
      std::fprintf(stderr, "io_trace_benchmark: unknown argument '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  c.build = fs::canonical(fs::path("/proc/self/exe")).parent_path().string();
  const std::string tmp_scratch = c.tmpfs + "/fathom-io-bench-" + std::to_string(getpid());
  const std::string disk_scratch = c.disk + "/fathom-io-bench-" + std::to_string(getpid());
  fs::create_directories(tmp_scratch);
  fs::create_directories(disk_scratch + "/meta");
  for (const std::string& part : c.parts) {
    if (part == "stdio") {
      Run(c, {"stdio", {"stdio", tmp_scratch + "/stdio.dat", std::to_string(c.stdio_ops / 2)},
              static_cast<double>(c.stdio_ops)}, tmp_scratch);
    } else if (part == "small") {
      Run(c, {"small", {"small", tmp_scratch + "/small.dat", std::to_string(c.small_ops / 2)},
              static_cast<double>(c.small_ops)}, tmp_scratch);
    } else if (part == "bigio") {
      Run(c, {"bigio", {"bigio", disk_scratch + "/big.dat", std::to_string(c.bigio_mib)},
              2.0 * static_cast<double>(c.bigio_mib)}, disk_scratch);
    } else if (part == "meta") {
      Run(c, {"meta", {"meta", disk_scratch + "/meta", std::to_string(c.meta_files)},
              3.0 * static_cast<double>(c.meta_files)}, disk_scratch);
    } else {
      std::fprintf(stderr, "io_trace_benchmark: unknown part '%s' (stdio, small, bigio, meta)\n", part.c_str());
      return 2;
    }
  }
  fs::remove_all(tmp_scratch);
  fs::remove_all(disk_scratch);
  return g_failed ? 1 : 0;
}
