// io_trace_benchmark — what tracing a program's I/O costs, beside the tracers Debian has.
//
// Each workload (bench/io_workload.c) runs plain, under libfathom-io.so (as `fathom io run`
// sets it up: compressed, and with --no-compress), and under strace (-f -c: counting system
// calls; -f -o FILE: a full trace). The variants run in rounds (--repeat rounds: plain, then
// each variant, the order turned every round), so that a file system's state drifting from run
// to run (ext4 remembers recently deleted inodes, and the metadata workload deletes 20,000
// files a run) weighs on all alike. Every variant is reported as its best wall time, the
// median over the rounds of its slowdown against the plain run of the same round, the cost it
// adds per operation (from the best times), and, for fathom, the trace's bytes and compression
// ratios: the uncompressed trace over the compressed one, and a fixed 40 bytes per operation
// (Darshan's DXT record) over the compressed one.
//
//   stdio: --stdio-ops one-byte fwrite then as many fread (default 50,000,000 in all), tmpfs
//   small: --small-ops 64-byte write(2) then as many pread (default 400,000 in all), tmpfs
//   bigio: --bigio-mib 1 MiB writes, fsync, and as many reads (default 1024 MiB), on disk
//   meta:  --meta-files files created, stat'ed and unlinked (default 20,000), on disk
//
// With --fresh-ext4 MIB (root only), each run of the disk workloads gets a new ext4 file system
// of that size, made in an image under --tmpfs and loop-mounted at the disk scratch directory:
// every run starts from the same state, and the figures are the file system's CPU path (no
// device latency), where a tracer's share is largest.
//
// Usage: io_trace_benchmark [--quick] [--repeat R] [--tmpfs DIR] [--disk DIR] [--fresh-ext4 MIB]
//                           [--parts a,b]
//                           [--stdio-ops N] [--small-ops N] [--bigio-mib N] [--meta-files N]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fathom/iotrace.h"
#include "timed_run.h"

namespace {

namespace fs = std::filesystem;
using fathom::bench::Installed;
using fathom::bench::Median;
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
  long fresh_ext4_mib = 0;  // > 0: a new ext4 of this size for each run of a disk workload
  std::vector<std::string> parts = {"stdio", "small", "bigio", "meta"};
  std::string build;
};

struct Workload {
  std::string name;
  std::vector<std::string> args;  // io_workload's
  double operations;
  std::string disk;  // the directory a fresh ext4 is mounted at for each run; "" on tmpfs
};

bool Quietly(const std::vector<std::string>& argv) {
  const TimedRun run = fathom::bench::RunTimed(argv);
  if (!run.started || run.exit_code != 0) {
    std::fprintf(stderr, "io_trace_benchmark: %s failed (exit %d)\n", argv[0].c_str(), run.exit_code);
    return false;
  }
  return true;
}

// A new ext4 of `mib` MiB mounted at `dir`, holding an empty "meta" directory.
bool FreshExt4(const Config& c, const std::string& dir) {
  const std::string image = c.tmpfs + "/fathom-io-bench-ext4.img";
  fs::remove(image);
  { std::ofstream(image).flush(); }
  fs::resize_file(image, static_cast<uintmax_t>(c.fresh_ext4_mib) << 20);
  fs::create_directories(dir);
  if (!Quietly({"mkfs.ext4", "-q", "-F", image}) || !Quietly({"mount", "-o", "loop", image, dir})) return false;
  fs::create_directories(dir + "/meta");
  return true;
}

void Unmount(const Config& c, const std::string& dir) {
  Quietly({"umount", dir});
  fs::remove(c.tmpfs + "/fathom-io-bench-ext4.img");
}

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

struct Variant {
  std::string name;
  std::vector<std::string> argv;
  std::string trace_dir;  // fathom's: removed before each run; "" for the others
  std::vector<TimedRun> runs;
};

const TimedRun& Best(const std::vector<TimedRun>& runs) {
  return *std::min_element(runs.begin(), runs.end(),
                           [](const TimedRun& a, const TimedRun& b) { return a.seconds < b.seconds; });
}

void Report(const Variant& v, const Variant& plain, double operations) {
  for (const TimedRun& run : v.runs) {
    if (!run.started || run.exit_code != 0) {
      std::printf("  %-22s failed (exit %d)\n", v.name.c_str(), run.exit_code);
      g_failed = true;
      return;
    }
  }
  std::vector<double> slowdowns;
  for (size_t i = 0; i < v.runs.size(); ++i)
    slowdowns.push_back((v.runs[i].seconds / plain.runs[i].seconds - 1) * 100);
  const double best = Best(v.runs).seconds, plain_best = Best(plain.runs).seconds;
  const double per_op_us = (best - plain_best) / operations * 1e6;
  std::printf("  %-22s %9.3f s  %+8.2f %% (median of %zu rounds; best %+.2f %%)  %+8.3f us/op\n",
              v.name.c_str(), best, Median(slowdowns), slowdowns.size(),
              (best / plain_best - 1) * 100, per_op_us);
}

void ReportTrace(const Variant& v, double operations, uint64_t& compressed_bytes) {
  const TraceSize size = Measure(v.trace_dir);
  std::printf("  %-22s %llu operations recorded, %llu dropped, %llu trace bytes (%.2f bytes/op)\n", "",
              static_cast<unsigned long long>(size.operations), static_cast<unsigned long long>(size.dropped),
              static_cast<unsigned long long>(size.bytes),
              size.operations > 0 ? static_cast<double>(size.bytes) / static_cast<double>(size.operations) : 0.0);
  if (static_cast<double>(size.operations + size.dropped) < operations) {
    std::printf("  %-22s the trace holds fewer operations than the workload made\n", "");
    g_failed = true;
  }
  if (compressed_bytes == 0) {
    compressed_bytes = size.bytes;
  } else {
    std::printf("  %-22s compression: %.1fx over the uncompressed trace, %.1fx over 40 B/op\n", "",
                static_cast<double>(size.bytes) / static_cast<double>(compressed_bytes),
                40.0 * static_cast<double>(size.operations) / static_cast<double>(compressed_bytes));
  }
  fs::remove_all(v.trace_dir);
}

void Run(const Config& c, const Workload& w, const std::string& scratch) {
  const std::string workload = c.build + "/io_workload";
  std::vector<std::string> command = {workload};
  command.insert(command.end(), w.args.begin(), w.args.end());
  std::printf("%s: %s (%.0f operations)\n", w.name.c_str(), w.args[0].c_str(), w.operations);
  std::vector<Variant> variants;
  std::vector<std::string> plain = {"env"};
  plain.insert(plain.end(), command.begin(), command.end());
  variants.push_back({"plain", plain, "", {}});
  for (const bool compress : {true, false}) {
    const std::string dir = scratch + "/traces-" + (compress ? "compressed" : "raw");
    variants.push_back({compress ? "fathom" : "fathom --no-compress", Traced(c, dir, compress, command), dir, {}});
  }
  if (Installed("strace")) {
    std::vector<std::string> count = {"strace", "-f", "-c", "-o", "/dev/null"};
    count.insert(count.end(), command.begin(), command.end());
    variants.push_back({"strace -f -c", count, "", {}});
    std::vector<std::string> full = {"strace", "-f", "-qq", "-o", scratch + "/strace.log"};
    full.insert(full.end(), command.begin(), command.end());
    variants.push_back({"strace -f -o FILE", full, "", {}});
  }
  for (int round = 0; round < c.repeat; ++round) {
    for (size_t k = 0; k < variants.size(); ++k) {
      Variant& v = variants[(k + static_cast<size_t>(round)) % variants.size()];
      if (!v.trace_dir.empty()) fs::remove_all(v.trace_dir);  // the last round's is kept to read
      const bool fresh = c.fresh_ext4_mib > 0 && !w.disk.empty();
      if (fresh && !FreshExt4(c, w.disk)) {
        g_failed = true;
        return;
      }
      v.runs.push_back(fathom::bench::RunTimed(v.argv));
      if (fresh) Unmount(c, w.disk);
    }
  }
  fs::remove(scratch + "/strace.log");
  const Variant& base = variants[0];
  for (const TimedRun& run : base.runs) {
    if (!run.started || run.exit_code != 0) {
      std::printf("  the plain run failed (exit %d)\n", run.exit_code);
      return;
    }
  }
  std::printf("  %-22s %9.3f s\n", "plain", Best(base.runs).seconds);
  uint64_t compressed_bytes = 0;
  for (size_t k = 1; k < variants.size(); ++k) {
    Report(variants[k], base, w.operations);
    if (!variants[k].trace_dir.empty()) ReportTrace(variants[k], w.operations, compressed_bytes);
  }
  if (variants.size() == 3) std::printf("  strace is not installed: no peer figures\n");
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
    else if (a == "--fresh-ext4") c.fresh_ext4_mib = std::stol(value("--fresh-ext4"));
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
      std::printf("usage: io_trace_benchmark [--quick] [--repeat R] [--tmpfs DIR] [--disk DIR] [--fresh-ext4 MIB]\n"
                  "                          [--parts stdio,small,bigio,meta]\n"
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
  if (c.fresh_ext4_mib > 0 && geteuid() != 0) {
    std::fprintf(stderr, "io_trace_benchmark: --fresh-ext4 mounts file systems: run it as root\n");
    return 2;
  }
  fs::create_directories(tmp_scratch);
  fs::create_directories(disk_scratch + "/meta");
  for (const std::string& part : c.parts) {
    if (part == "stdio") {
      Run(c, {"stdio", {"stdio", tmp_scratch + "/stdio.dat", std::to_string(c.stdio_ops / 2)},
              static_cast<double>(c.stdio_ops), ""}, tmp_scratch);
    } else if (part == "small") {
      Run(c, {"small", {"small", tmp_scratch + "/small.dat", std::to_string(c.small_ops / 2)},
              static_cast<double>(c.small_ops), ""}, tmp_scratch);
    } else if (part == "bigio") {
      Run(c, {"bigio", {"bigio", disk_scratch + "/big.dat", std::to_string(c.bigio_mib)},
              2.0 * static_cast<double>(c.bigio_mib), disk_scratch}, tmp_scratch);
    } else if (part == "meta") {
      Run(c, {"meta", {"meta", disk_scratch + "/meta", std::to_string(c.meta_files)},
              3.0 * static_cast<double>(c.meta_files), disk_scratch}, tmp_scratch);
    } else {
      std::fprintf(stderr, "io_trace_benchmark: unknown part '%s' (stdio, small, bigio, meta)\n", part.c_str());
      return 2;
    }
  }
  fs::remove_all(tmp_scratch);
  fs::remove_all(disk_scratch);
  return g_failed ? 1 : 0;
}
