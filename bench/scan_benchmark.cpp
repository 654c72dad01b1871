// scan_benchmark — the catalog's tree scanner beside GNU find and bfs on the same tree.
//
// Each tool lists every name below PATH with the attributes a catalog needs (inode, size,
// owner, mtime): the scanner into a sink that only counts, `find PATH -printf '%i %s %u %g
// %T@ %p\n'` and `bfs` (if installed) with the same format into /dev/null. One untimed find
// first warms the cache; then each tool runs --repeat times and its best run counts. Prints
// one line per tool (seconds, entries/s, ratio to the scanner, peak RSS) and, with --json, the
// same as one JSON object.
//
// With --poll, measures instead what the poll backend costs per interval on PATH: a pass that
// builds the compact snapshot, then a second pass compared with the first (the events a
// quiet tree gives: none), each timed, and the peak RSS with two snapshots held.
//
// Usage: scan_benchmark PATH [--threads N] [--repeat R] [--chunk N] [--json] [--poll]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "catalog/scan/scanner.h"
#include "fathom/event.h"
#include "sources/poll/snapshot.h"
#include "sources/poll/snapshot_diff.h"
#include "timed_run.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Figure {
  std::string tool;
  double seconds = 0;
  uint64_t entries = 0;
  long peak_rss_kb = 0;
};

class CountingSink : public fathom::scan::ScanSink {
 public:
  void OnChunk(fathom::scan::ScanChunk&& chunk) override {
    entries += chunk.entries.size() + (chunk.first && chunk.parent_token == 0 ? 1 : 0);
  }
  void OnProblem(fathom::scan::ScanProblem&& p) override {
    std::fprintf(stderr, "scan_benchmark: %s\n", p.message.c_str());
  }
  uint64_t entries = 0;
};

// Runs argv with stdout to /dev/null; the wall time and the child's peak RSS.
std::optional<Figure> RunTool(const std::string& tool, const std::vector<std::string>& argv) {
  const fathom::bench::TimedRun run = fathom::bench::RunTimed(argv);
  if (!run.started) return std::nullopt;
  if (run.exit_code != 0) std::fprintf(stderr, "scan_benchmark: %s exited with status %d\n", tool.c_str(), run.exit_code);
  Figure f;
  f.tool = tool;
  f.seconds = run.seconds;
  f.peak_rss_kb = run.peak_rss_kb;
  return f;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Two poll passes over `path` and the comparison of their snapshots.
int PollPasses(const std::string& path, const fathom::scan::ScanOptions& options) {
  using fathom::poll_internal::Snapshot;
  using fathom::poll_internal::SnapshotBuilder;
  fathom::scan::Scanner scanner(options);
  auto pass = [&](Snapshot& out) {
    SnapshotBuilder builder;
    fathom::Status st = scanner.Run({path}, builder);
    out = builder.Take();
    return st;
  };
  Snapshot first, second;
  auto t0 = Clock::now();
  if (fathom::Status st = pass(first); !st.ok()) {
    std::fprintf(stderr, "scan_benchmark: %s\n", st.message().c_str());
    return 1;
  }
  const double first_s = Seconds(t0);
  t0 = Clock::now();
  if (fathom::Status st = pass(second); !st.ok()) {
    std::fprintf(stderr, "scan_benchmark: %s\n", st.message().c_str());
    return 1;
  }
  const double scan_s = Seconds(t0);
  t0 = Clock::now();
  std::vector<fathom::Event> events;
  uint32_t cookie = 0;
  fathom::poll_internal::DiffSnapshots(first, second, fathom::NowNs(), cookie, events);
  const double diff_s = Seconds(t0);
  struct rusage self {};
  getrusage(RUSAGE_SELF, &self);
  std::printf(
      "poll pass over %zu names: first %.3f s; next %.3f s scan + %.3f s compare; %zu "
      "events; peak RSS %.1f MB (two snapshots)\n",
      second.size(), first_s, scan_s, diff_s, events.size(),
      static_cast<double>(self.ru_maxrss) / 1024.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  fathom::scan::ScanOptions options;
  int repeat = 3;
  bool json = false;
  bool poll = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      options.threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--chunk" && i + 1 < argc) {
      options.chunk_entries = static_cast<size_t>(std::atoi(argv[++i]));
    } else if (a == "--json") {
      json = true;
    } else if (a == "--poll") {
      poll = true;
    } else if (!a.empty() && a[0] != '-' && path.empty()) {
      path = a;
    } else {
      std::fprintf(stderr,
                   "usage: scan_benchmark PATH [--threads N] [--repeat R] [--chunk N] [--json] "
                   "[--poll]\n");
      return 2;
    }
  }
  if (path.empty() || path[0] != '/') {
    std::fprintf(stderr, "scan_benchmark: give the tree as an absolute PATH\n");
    return 2;
  }
  const std::string format = "%i %s %u %g %T@ %p\n";
  RunTool("warm-up", {"find", path, "-printf", format});
  if (poll) return PollPasses(path, options);

  std::vector<Figure> figures;
  Figure best{"fathom scan"};
  for (int r = 0; r < repeat; ++r) {
    fathom::scan::Scanner scanner(options);
    CountingSink sink;
    const auto t0 = Clock::now();
    fathom::Status st = scanner.Run({path}, sink);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!st.ok()) {
      std::fprintf(stderr, "scan_benchmark: %s\n", st.message().c_str());
      return 1;
    }
    if (r == 0 || s < best.seconds) {
      best.seconds = s;
      best.entries = sink.entries;
    }
  }
  struct rusage self {};
  getrusage(RUSAGE_SELF, &self);
  best.peak_rss_kb = self.ru_maxrss;
  figures.push_back(best);

  std::vector<std::pair<std::string, std::vector<std::string>>> peers = {
      {"find", {"find", path, "-printf", format}}};
  if (fathom::bench::Installed("bfs")) {
    peers.push_back({"bfs", {"bfs", path, "-printf", format}});
  } else {
    std::fprintf(stderr, "scan_benchmark: bfs is not installed (apt-get install bfs); skipped\n");
  }
  for (const auto& [tool, cmd] : peers) {
    std::optional<Figure> peer_best;
    for (int r = 0; r < repeat; ++r) {
      std::optional<Figure> f = RunTool(tool, cmd);
      if (!f) break;
      if (!peer_best || f->seconds < peer_best->seconds) peer_best = f;
    }
    if (peer_best) {
      peer_best->entries = best.entries;
      figures.push_back(*peer_best);
    }
  }

  std::printf("%-12s %10s %14s %12s %12s\n", "tool", "seconds", "entries/s", "vs fathom",
              "peak RSS MB");
  for (const Figure& f : figures) {
    std::printf("%-12s %10.3f %14.0f %11.2fx %12.1f\n", f.tool.c_str(), f.seconds,
                static_cast<double>(f.entries) / f.seconds, f.seconds / best.seconds,
                static_cast<double>(f.peak_rss_kb) / 1024.0);
  }
  if (json) {
    std::printf("{\"path\":\"%s\",\"entries\":%llu,\"threads\":%u,\"tools\":[", path.c_str(),
                static_cast<unsigned long long>(best.entries),
                options.threads != 0 ? options.threads : std::thread::hardware_concurrency());
    for (size_t i = 0; i < figures.size(); ++i) {
      const Figure& f = figures[i];
      std::printf("%s{\"tool\":\"%s\",\"seconds\":%.4f,\"entries_per_s\":%.0f,\"peak_rss_kb\":%ld}",
                  i ? "," : "", f.tool.c_str(), f.seconds,
                  static_cast<double>(f.entries) / f.seconds, f.peak_rss_kb);
    }
    std::printf("]}\n");
  }
  return 0;
}
