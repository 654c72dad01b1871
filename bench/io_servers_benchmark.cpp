// io_servers_benchmark — the server side of I/O monitoring: reading Lustre's job_stats and
// finding slow targets.
//
//   parse:     an OST's job_stats text of --jobs jobs (default 5,000), as the Lustre emulator
//              prints it (Lustre 2.16's YAML), read by fathom's reader (lustre::ParseJobStats)
//              and by PyYAML with its C loader (yaml.CSafeLoader), the way Lustre's own
//              lljobstat reads it. Best of 3 each; ratio PyYAML / fathom.
//   anomalies: io::FindAnomalies over --osts OSTs (default 256) sampled every second for
//              --seconds seconds (default 3,600), one of them five times slower than the others
//              for the same volume (it must be the one flagged).
//
// Usage: io_servers_benchmark [--quick] [--jobs N] [--osts N] [--seconds N] [--dir DIR]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "fathom/io_servers.h"
#include "lustre/stats_text.h"
#include "lustre_sim/fuse/target_stats.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string JobStatsText(int jobs) {
  fathom::lustre_sim::TargetStats stats("bench", 1, 1);
  for (int j = 0; j < jobs; ++j) {
    const std::string job = "job" + std::to_string(j) + "." + std::to_string(1000 + j % 97);
    for (int i = 0; i < 1 + j % 7; ++i) {
      stats.AddOst(0, job, fathom::lustre_sim::OstOp::kWriteBytes, 4096u << (i % 9));
      stats.AddOst(0, job, fathom::lustre_sim::OstOp::kWrite, 100 + 13 * i);
      if (i % 2 == 0) stats.AddOst(0, job, fathom::lustre_sim::OstOp::kReadBytes, 1u << 20);
      if (i % 3 == 0) stats.AddOst(0, job, fathom::lustre_sim::OstOp::kPunch, 40);
    }
  }
  return stats.OstJobStats(0);
}

// PyYAML's time to load `path`, best of 3, measured inside Python (its start-up left out);
// negative when it could not run.
double PyYamlSeconds(const std::string& path, size_t* jobs) {
  const std::string out = path + ".pyyaml";
  const std::string command =
      "python3 -c 'import sys, time, yaml\n"
      "text = open(sys.argv[1]).read()\n"
      "best = None\n"
      "for _ in range(3):\n"
      "    t = time.perf_counter(); d = yaml.load(text, Loader=yaml.CSafeLoader); t = "
      "time.perf_counter() - t\n"
      "    best = t if best is None else min(best, t)\n"
      "print(best, len(d[\"job_stats\"]))' " +
      path + " > " + out;
  if (std::system(command.c_str()) != 0) return -1;
  std::ifstream in(out);
  double seconds = -1;
  in >> seconds >> *jobs;
  unlink(out.c_str());
  return seconds;
}

std::vector<fathom::io::ServerSample> Samples(int osts, int seconds) {
  std::vector<fathom::io::ServerSample> out;
  out.reserve(static_cast<size_t>(osts) * static_cast<size_t>(seconds) * 2);
  constexpr int64_t kSecond = 1'000'000'000;
  // The peers move 100 MiB/s for the first fifth of the time; the slow one moves the same
  // volume at 20 MiB/s over the whole time.
  for (int t = 1; t <= seconds; ++t) {
    for (int ost = 0; ost < osts; ++ost) {
      const bool slow = ost == osts / 2;
      if (!slow && t > std::max(1, seconds / 5)) continue;
      char name[32];
      std::snprintf(name, sizeof(name), "fs-OST%04x", ost);
      const uint64_t mib = slow ? 20 : 100;
      const uint64_t usecs_per_mib = slow ? 50000 : 900 + static_cast<uint64_t>(ost % 5) * 10;
      out.push_back({t * kSecond, kSecond, name, "", "write_bytes", "bytes", mib * 16, mib << 20});
      out.push_back(
          {t * kSecond, kSecond, name, "", "write", "usecs", mib * 16, mib * usecs_per_mib});
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = 5'000, osts = 256, seconds = 3'600;
  std::string dir = "/dev/shm";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--quick") {
      jobs = 1'000;
      osts = 16;
      seconds = 60;
    } else if (a == "--jobs") {
      jobs = std::atoi(next().c_str());
    } else if (a == "--osts") {
      osts = std::atoi(next().c_str());
    } else if (a == "--seconds") {
      seconds = std::atoi(next().c_str());
    } else if (a == "--dir") {
      dir = next();
    } else {
      std::fprintf(stderr,
                   "usage: io_servers_benchmark [--quick] [--jobs N] [--osts N] [--seconds N] "
                   "[--dir DIR]\n");
      return 2;
    }
  }
  if (jobs < 1 || osts < 3 || seconds < 1) {
    std::fprintf(stderr,
                 "io_servers_benchmark: --jobs must be >= 1, --osts >= 3, --seconds >= 1\n");
    return 2;
  }

  const std::string text = JobStatsText(jobs);
  double best = 1e9;
  size_t parsed = 0;
  for (int round = 0; round < 3; ++round) {
    const auto start = Clock::now();
    const fathom::lustre::JobStatsText t = fathom::lustre::ParseJobStats(text);
    best = std::min(best, Seconds(start));
    parsed = t.jobs.size();
    if (!t.problems.empty()) {
      std::fprintf(stderr, "io_servers_benchmark: the reader found a problem: %s\n",
                   t.problems[0].message.c_str());
      return 1;
    }
  }
  if (parsed != static_cast<size_t>(jobs)) {
    std::fprintf(stderr, "io_servers_benchmark: read %zu jobs of %d\n", parsed, jobs);
    return 1;
  }
  const std::string path = dir + "/io_servers_bench." + std::to_string(getpid()) + ".yaml";
  std::ofstream(path) << text;
  size_t py_jobs = 0;
  const double py = PyYamlSeconds(path, &py_jobs);
  unlink(path.c_str());
  std::printf("job_stats of %d jobs (%.1f MiB, Lustre 2.16 text)\n", jobs,
              static_cast<double>(text.size()) / (1 << 20));
  std::printf("  fathom ParseJobStats      %8.3f s  %10.0f jobs/s  %7.1f MiB/s\n", best,
              jobs / best, static_cast<double>(text.size()) / (1 << 20) / best);
  if (py >= 0 && py_jobs == static_cast<size_t>(jobs)) {
    std::printf("  PyYAML CSafeLoader        %8.3f s  %10.0f jobs/s   (lljobstat's reader)\n", py,
                jobs / py);
    std::printf("  ratio                     %8.1fx faster\n", py / best);
  } else {
    std::printf("  PyYAML CSafeLoader        not run (python3-yaml missing, or it read %zu jobs)\n",
                py_jobs);
  }

  const auto samples = Samples(osts, seconds);
  const auto start = Clock::now();
  const auto found = fathom::io::FindAnomalies(samples, {});
  const double took = Seconds(start);
  std::printf(
      "anomalies over %d OSTs x %d s (%zu samples): %.3f s, %.1f M samples/s, %zu flagged (%s)\n",
      osts, seconds, samples.size(), took, static_cast<double>(samples.size()) / took / 1e6,
      found.size(), found.empty() ? "none" : found[0].target.c_str());
  return found.size() == 1 ? 0 : 1;
}
