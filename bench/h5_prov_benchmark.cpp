// h5_prov_benchmark — what capturing HDF5 provenance costs on the kernels H5Prov was measured
// with, and what `fathom h5 report` finds in their traces.
//
// The kernels (tests/h5prov/workloads/vpic_io.c, bdcats_io.c): a VPIC-IO-like writer, a group
// per time step holding 8 float arrays of N particles per rank in one file, each rank writing
// its own hyperslab; and a BD-CATS-IO-like reader of that file, which checks what it reads.
// Each runs serial and on 2 MPI ranks (the openmpi build, under mpirun; collective transfers),
// plain, with libfathom-h5.so preloaded (the tracer alone) and under `fathom h5 run` (the
// command's start added), and beside the nearest peers Debian has (none records HDF5 calls with
// their objects and bytes): strace -c around each rank (system calls only) and, when installed,
// on the serial builds, ltrace on the program's HDF5 calls (`-e H5*@MAIN`; -c: counts and
// times; -T -o FILE: one line per call with its duration, and no object, byte or selection).
//
// The variants run in paired rounds (--repeat: plain, then each variant, the order turned every
// round). Each is reported as its median time and the median over the rounds of its slowdown
// against the plain run of the same round; fathom's also as µs per traced call (median time
// added over the calls traced: the tracer's fixed start-up cost is in it) and its trace's bytes
// per call and per data operation (H5Dwrite, H5Dread). Then
// `fathom h5 report --json` on the last round's traces: the share of H5Dwrite/H5Dread in the
// time in HDF5, and the median H5Fclose and H5Dclose of the read-only file (reader) beside
// those of the written one (writer), H5Prov's findings on Cori.
//
// Usage: h5_prov_benchmark [--quick] [--particles N] [--steps T] [--repeat R] [--dir DIR]
//                          [--ranks 1,2] [--no-peers]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fathom/h5prov.h"
#include "timed_run.h"

namespace {

namespace fs = std::filesystem;
using fathom::bench::Installed;
using fathom::bench::Median;
using fathom::bench::TimedRun;

bool g_failed = false;  // a run failed, or a trace missed calls: the exit status says so

struct Config {
  long particles = 8L << 20;  // per rank: VPIC-IO's 8 Mi in H5Prov's runs
  int steps = 2;
  int repeat = 5;
  std::string dir = "/dev/shm";
  std::vector<int> ranks = {1, 2};
  bool peers = true;
  std::string build;
};

struct Kernel {
  std::string name;               // "vpic_io", "bdcats_io"
  std::string data_op;            // "H5Dwrite", "H5Dread"
  std::vector<std::string> args;  // after the program
};

// The kernel's program: the serial build for one rank, the openmpi build (under mpirun) for more.
std::string Program(const Config& c, const Kernel& k, int ranks) {
  return c.build + "/tests/h5-workloads/" + k.name + (ranks > 1 ? "_mpi" : "");
}

// `wrapper` (a peer tool and its options, or nothing) around each rank of the kernel.
std::vector<std::string> PerRank(const Config& c, const Kernel& k, int ranks, const std::vector<std::string>& wrapper) {
  std::vector<std::string> argv;
  if (ranks > 1) argv = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(ranks)};
  argv.insert(argv.end(), wrapper.begin(), wrapper.end());
  argv.push_back(Program(c, k, ranks));
  argv.insert(argv.end(), k.args.begin(), k.args.end());
  return argv;
}

// A peer tool writing to BASE.RANK: `tool -o BASE.RANK options...` in front of the program.
std::vector<std::string> Peer(const std::string& tool, const std::string& base, std::vector<std::string> options) {
  std::vector<std::string> wrapper = {"sh", "-c", "out=$1.${OMPI_COMM_WORLD_RANK:-0}; shift; exec \"$0\" -o \"$out\" \"$@\"",
                                      tool, base};
  wrapper.insert(wrapper.end(), options.begin(), options.end());
  return wrapper;
}

struct Variant {
  std::string name;
  std::vector<std::string> argv;
  std::string output;  // fathom's trace directory or a peer's output base: removed before each run
  std::vector<TimedRun> runs;
};

std::vector<double> Seconds(const Variant& v) {
  std::vector<double> s;
  for (const TimedRun& run : v.runs) s.push_back(run.seconds);
  return s;
}

void RemoveOutput(const std::string& base) {
  const fs::path p(base);
  if (!fs::exists(p.parent_path())) return;
  for (const auto& entry : fs::directory_iterator(p.parent_path())) {
    if (entry.path().filename().string().starts_with(p.filename().string())) fs::remove_all(entry.path());
  }
}

// The size and lines of a peer's output files (BASE.*).
std::pair<uintmax_t, uint64_t> OutputSize(const std::string& base) {
  uintmax_t bytes = 0;
  uint64_t lines = 0;
  const fs::path p(base);
  for (const auto& entry : fs::directory_iterator(p.parent_path())) {
    if (!entry.path().filename().string().starts_with(p.filename().string() + ".")) continue;
    bytes += entry.file_size();
    std::FILE* f = std::fopen(entry.path().c_str(), "r");
    for (int ch; f != nullptr && (ch = std::fgetc(f)) != EOF;) lines += ch == '\n';
    if (f != nullptr) std::fclose(f);
  }
  return {bytes, lines};
}

struct TraceFigures {
  uint64_t files = 0, bytes = 0, calls = 0, data_ops = 0, dropped = 0, problems = 0;
};

TraceFigures ReadTraces(const std::string& dir, const std::string& data_op) {
  TraceFigures f;
  auto files = fathom::h5prov::FindTraceFiles(dir);
  if (!files.ok()) return f;
  for (const std::string& file : *files) {
    auto trace = fathom::h5prov::ReadTrace(file);
    if (!trace.ok()) {
      ++f.problems;
      continue;
    }
    ++f.files;
    f.bytes += trace->bytes;
    f.calls += trace->calls.size();
    f.dropped += trace->dropped;
    f.problems += trace->problems.size();
    for (const auto& call : trace->calls) f.data_ops += fathom::h5prov::OpName(call.op) == data_op;
  }
  return f;
}

// What the report says of one function: its share of the time in HDF5 and its median.
struct FunctionFigures {
  uint64_t count = 0;
  double share = 0;
  uint64_t p50_ns = 0;
};

struct CaseResult {
  bool ok = false;
  std::map<std::string, FunctionFigures> functions;
};

// The median duration of `function` in a case's report (0 if it made no such call).
double MedianNs(const CaseResult& r, const std::string& function) {
  const auto it = r.functions.find(function);
  return it == r.functions.end() ? 0 : static_cast<double>(it->second.p50_ns);
}

double Percent(double a, double b) { return (a / b - 1) * 100; }

CaseResult RunCase(const Config& c, const Kernel& k, int ranks, const std::string& scratch) {
  const std::string fathom = c.build + "/fathom";
  const std::string traces = scratch + "/traces-" + k.name + "-" + std::to_string(ranks);
  // Exactly the calls the kernel makes per rank: the file, then per step its group and the 8
  // arrays each made or opened, moved and closed.
  const uint64_t expected_calls = static_cast<uint64_t>(ranks) * (2 + static_cast<uint64_t>(c.steps) * (2 + 8 * 3));
  std::printf("%s, %d rank%s: %ld particles per rank, %d steps (%.0f MiB), %d round%s\n", k.name.c_str(), ranks,
              ranks > 1 ? "s" : "", c.particles, c.steps,
              8.0 * 4 * static_cast<double>(c.particles) * ranks * c.steps / (1 << 20), c.repeat,
              c.repeat > 1 ? "s" : "");
  std::vector<Variant> variants;
  variants.push_back({"plain", PerRank(c, k, ranks, {}), "", {}});
  // The tracer alone, preloaded as `fathom h5 run` sets it up; then through `fathom h5 run`,
  // which adds the command's own start.
  const std::string preloaded = scratch + "/preloaded-" + k.name + "-" + std::to_string(ranks);
  std::vector<std::string> preload = {"env", "LD_PRELOAD=" + c.build + "/lib/fathom/libfathom-h5.so", "FATHOM_H5=1",
                                      "FATHOM_H5_DIR=" + preloaded, "FATHOM_JOB_ID=bench"};
  preload.insert(preload.end(), variants[0].argv.begin(), variants[0].argv.end());
  variants.push_back({"libfathom-h5.so", preload, preloaded, {}});
  std::vector<std::string> traced = {fathom, "h5", "run", "--out", traces, "--job", "bench", "--"};
  traced.insert(traced.end(), variants[0].argv.begin(), variants[0].argv.end());
  variants.push_back({"fathom h5 run", traced, traces, {}});
  if (c.peers && Installed("strace")) {
    const std::string base = scratch + "/strace-c";
    variants.push_back({"strace -c", PerRank(c, k, ranks, Peer("strace", base, {"-c"})), base, {}});
  }
  // ltrace around an MPI rank costs about 20 s a run at any size here: serial builds only.
  if (c.peers && ranks == 1 && Installed("ltrace")) {
    const std::string count = scratch + "/ltrace-c", full = scratch + "/ltrace-T";
    variants.push_back({"ltrace -c", PerRank(c, k, ranks, Peer("ltrace", count, {"-c", "-e", "H5*@MAIN"})), count, {}});
    variants.push_back(
        {"ltrace -T -o FILE", PerRank(c, k, ranks, Peer("ltrace", full, {"-T", "-tt", "-e", "H5*@MAIN"})), full, {}});
  }
  for (int round = 0; round < c.repeat; ++round) {
    for (size_t i = 0; i < variants.size(); ++i) {
      Variant& v = variants[(i + static_cast<size_t>(round)) % variants.size()];
      if (!v.output.empty()) RemoveOutput(v.output);  // the last round's is kept to read
      v.runs.push_back(fathom::bench::RunTimed(v.argv));
    }
  }
  CaseResult result;
  for (const Variant& v : variants) {
    for (const TimedRun& run : v.runs) {
      if (!run.started || run.exit_code != 0) {
        std::printf("  %-20s failed (exit %d)\n", v.name.c_str(), run.exit_code);
        g_failed = true;
        return result;
      }
    }
  }
  const double plain_s = Median(Seconds(variants[0]));
  std::printf("  %-20s %8.3f s (median)\n", "plain", plain_s);
  const TraceFigures t = ReadTraces(preloaded, k.data_op);
  const double tracer_s = Median(Seconds(variants[1])) - plain_s;
  for (size_t i = 1; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    std::vector<double> slowdowns;
    for (size_t r = 0; r < v.runs.size(); ++r) slowdowns.push_back(Percent(v.runs[r].seconds, variants[0].runs[r].seconds));
    const double s = Median(Seconds(v));
    std::printf("  %-20s %8.3f s  %+7.2f %% (median of %zu paired rounds)", v.name.c_str(), s, Median(slowdowns),
                slowdowns.size());
    if (i <= 2) {
      std::printf("  %+.1f us per traced call\n", (s - plain_s) * 1e6 / static_cast<double>(t.calls));
    } else {
      const auto [bytes, lines] = OutputSize(v.output);
      if (tracer_s > 0) std::printf("  adds %.1fx the tracer's time;", (s - plain_s) / tracer_s);
      std::printf(" %ju bytes of output, %llu lines\n", bytes, static_cast<unsigned long long>(lines));
      RemoveOutput(v.output);
    }
    if (i == 1) {
      std::printf("  %-20s %llu calls traced in %llu files (%llu expected), %llu trace bytes: %.1f bytes per call, "
                  "%.1f per %s\n",
                  "", static_cast<unsigned long long>(t.calls), static_cast<unsigned long long>(t.files),
                  static_cast<unsigned long long>(expected_calls), static_cast<unsigned long long>(t.bytes),
                  static_cast<double>(t.bytes) / static_cast<double>(t.calls),
                  static_cast<double>(t.bytes) / static_cast<double>(t.data_ops), k.data_op.c_str());
      if (t.calls != expected_calls || t.dropped != 0 || t.problems != 0 || t.files != static_cast<uint64_t>(ranks)) {
        std::printf("  %-20s the traces are not the kernel's calls (%llu dropped, %llu problems)\n", "",
                    static_cast<unsigned long long>(t.dropped), static_cast<unsigned long long>(t.problems));
        g_failed = true;
      }
      fs::remove_all(preloaded);
    }
  }

  const TimedRun report = fathom::bench::RunTimed({fathom, "h5", "report", "--json", traces + "/bench"}, true);
  const auto json = nlohmann::json::parse(report.out, nullptr, false);
  if (report.exit_code != 0 || json.is_discarded() || !json.contains("functions")) {
    std::printf("  fathom h5 report failed (exit %d)\n", report.exit_code);
    g_failed = true;
    return result;
  }
  for (const auto& f : json["functions"]) {
    result.functions[f["function"].get<std::string>()] = {f["count"].get<uint64_t>(), f["share"].get<double>(),
                                                           f["p50_ns"].get<uint64_t>()};
  }
  const FunctionFigures data = result.functions[k.data_op];
  std::printf("  report (%.3f s): %s %.1f %% of %.3f s in HDF5 (%llu calls, median %.0f us);", report.seconds,
              k.data_op.c_str(), data.share * 100, json["hdf5_ns"].get<double>() / 1e9,
              static_cast<unsigned long long>(data.count), static_cast<double>(data.p50_ns) / 1e3);
  for (const char* close : {"H5Fclose", "H5Dclose"}) std::printf(" %s median %.1f us;", close, MedianNs(result, close) / 1e3);
  std::printf(" the most time: %s\n", json["functions"].empty() ? "-" : json["functions"][0]["function"].get<std::string>().c_str());
  fs::remove_all(traces);
  result.ok = true;
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The HDF5 tracer's cost on VPIC-IO-like and BD-CATS-IO-like kernels, beside strace and ltrace"};
  Config c;
  bool quick = false;
  app.add_option("--particles", c.particles, "Particles per rank")->check(CLI::PositiveNumber);
  app.add_option("--steps", c.steps, "Time steps")->check(CLI::PositiveNumber);
  app.add_option("--repeat", c.repeat, "Paired rounds")->check(CLI::PositiveNumber);
  app.add_option("--dir", c.dir, "Where the kernels' file and the traces go");
  app.add_option("--ranks", c.ranks, "Rank counts to run (1: the serial build)")->delimiter(',');
  app.add_flag("!--no-peers", c.peers, "Leave out strace and ltrace");
  app.add_flag("--quick", quick, "The smoke run: 65,536 particles per rank, one round");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    c.particles = 65536;
    c.repeat = 1;
  }
  c.build = fs::canonical(fs::path("/proc/self/exe")).parent_path().string();
  const std::string scratch = c.dir + "/fathom-h5-bench-" + std::to_string(getpid());
  fs::create_directories(scratch);
  for (const int ranks : c.ranks) {
    const std::string file = scratch + "/particles.h5";
    const Kernel writer = {"vpic_io", "H5Dwrite", {"-n", std::to_string(c.particles), "-t", std::to_string(c.steps), file}};
    const Kernel reader = {"bdcats_io", "H5Dread", {file}};
    const CaseResult wrote = RunCase(c, writer, ranks, scratch);
    const CaseResult read = wrote.ok ? RunCase(c, reader, ranks, scratch) : CaseResult{};
    if (read.ok) {
      std::printf("closing, %d rank%s: the read-only file's beside the written file's, medians:", ranks,
                  ranks > 1 ? "s" : "");
      for (const char* close : {"H5Fclose", "H5Dclose"}) {
        const double r = MedianNs(read, close), w = MedianNs(wrote, close);
        std::printf(" %s %.1f us vs %.1f us (%.2fx);", close, r / 1e3, w / 1e3, w > 0 ? r / w : 0.0);
      }
      std::printf("\n");
    }
    fs::remove(file);
  }
  fs::remove_all(scratch);
  if (!Installed("ltrace") && c.peers) std::printf("ltrace is not installed: no ltrace figures (apt-get install ltrace)\n");
  return g_failed ? 1 : 0;
}
