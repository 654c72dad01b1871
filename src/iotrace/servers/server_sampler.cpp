// ServerSampler: one read of lctl's parameters and the local statistics, and what grew since
// the previous read.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "core/child_process.h"
#include "fathom/io_servers.h"
#include "iotrace/servers/lctl_output.h"
#include "iotrace/servers/local_stats_text.h"
#include "lustre/stats_text.h"

namespace fathom::io {
namespace {

using Counters = std::map<std::string, lustre::StatsCounter>;

// What one read saw: per target, its job_stats text and its totals (lprocfs stats and the
// local statistics).
struct Snapshot {
  int64_t ts_ns = 0;
  std::map<std::string, lustre::JobStatsText> jobs;
  std::map<std::string, Counters> totals;
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void AddProblems(const std::string& where, const std::vector<lustre::TextProblem>& problems,
                 std::vector<std::string>& out) {
  for (const auto& p : problems)
    out.push_back(where + " line " + std::to_string(p.line) + ": " + p.message);
}

void ReadLctl(const SamplerOptions& options, Snapshot& snap, std::vector<std::string>& problems) {
  std::string text;
  ChildSpec spec;
  spec.argv = {options.lctl, "get_param"};
  spec.argv.insert(spec.argv.end(), options.params.begin(), options.params.end());
  spec.output = &text;
  spec.timeout_ns = 30'000'000'000;
  auto exit = RunChild(spec);
  if (!exit.ok()) {
    problems.push_back(exit.status().message());
    return;
  }
  if (!exit->started) {
    problems.push_back("cannot run " + options.lctl + ": " + std::strerror(exit->start_errno) +
                       " (give --lctl PATH, or --lctl '' to read local statistics only)");
    return;
  }
  // lctl exits non-zero when one pattern matched nothing; what it printed is still good.
  for (LctlParam& p : SplitLctlOutput(text)) {
    if (p.leaf == "job_stats") {
      lustre::JobStatsText t = lustre::ParseJobStats(p.value);
      AddProblems(p.name, t.problems, problems);
      snap.jobs[p.target] = std::move(t);
    } else if (p.leaf == "brw_stats") {
      // Each row of each block, as two counters of requests: "read pages per bulk r/w 256".
      const lustre::BrwStats b = lustre::ParseBrwStats(p.value);
      AddProblems(p.name, b.problems, problems);
      Counters& c = snap.totals[p.target];
      for (const auto& [block, rows] : b.blocks) {
        for (const auto& row : rows) {
          for (const auto& [way, n] :
               {std::pair{"read ", row.read}, std::pair{"write ", row.write}}) {
            lustre::StatsCounter& counter = c[way + block + " " + row.bucket];
            counter.unit = "reqs";
            counter.samples = counter.sum = n;
          }
        }
      }
    } else {
      const lustre::LprocfsStats s = lustre::ParseLprocfsStats(p.value);
      AddProblems(p.name, s.problems, problems);
      snap.totals[p.target].insert(s.counters.begin(), s.counters.end());
    }
  }
  if (text.empty() && exit->exit_code != 0) {
    problems.push_back(options.lctl + " get_param exited with status " +
                       std::to_string(exit->exit_code));
  }
}

void ReadLocal(const std::string& path, LocalStats (*parse)(std::string_view), Snapshot& snap,
               std::vector<std::string>& problems) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problems.push_back("cannot read " + path + ": " + std::strerror(errno));
    return;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const LocalStats stats = parse(text.str());
  AddProblems(path, stats.problems, problems);
  for (const auto& [target, counters] : stats.targets) snap.totals[target] = counters;
}

}  // namespace

struct ServerSampler::State {
  bool have_previous = false;
  Snapshot previous;
};

ServerSampler::ServerSampler(SamplerOptions options)
    : options_(std::move(options)), state_(std::make_unique<State>()) {}

ServerSampler::~ServerSampler() = default;

SampleRead ServerSampler::Read() {
  SampleRead out;
  Snapshot snap;
  snap.ts_ns = NowNs();
  if (!options_.lctl.empty()) ReadLctl(options_, snap, out.problems);
  if (!options_.diskstats.empty())
    ReadLocal(options_.diskstats, ParseDiskstats, snap, out.problems);
  if (!options_.mountstats.empty())
    ReadLocal(options_.mountstats, ParseMountstats, snap, out.problems);
  if (state_->have_previous) {
    const Snapshot& before = state_->previous;
    const int64_t interval = snap.ts_ns - before.ts_ns;
    auto add = [&](const std::string& target, const std::string& job, const std::string& name,
                   const std::string& unit, uint64_t samples, uint64_t sum) {
      if (samples == 0 && sum == 0) return;
      out.samples.push_back({snap.ts_ns, interval, target, job, name, unit, samples, sum});
    };
    for (const auto& [target, text] : snap.jobs) {
      auto then = before.jobs.find(target);
      const lustre::JobStatsChange change = lustre::DiffJobStats(
          then != before.jobs.end() ? then->second : lustre::JobStatsText{}, text);
      for (const auto& job : change.jobs) {
        for (const auto& [name, c] : job.counters)
          add(target, job.job_id, name, c.unit, c.samples, c.sum);
      }
    }
    for (const auto& [target, counters] : snap.totals) {
      auto then = before.totals.find(target);
      for (const auto& [name, now] : counters) {
        const lustre::StatsCounter* was = nullptr;
        if (then != before.totals.end()) {
          auto it = then->second.find(name);
          if (it != then->second.end()) was = &it->second;
        }
        // A counter that went down was reset: all it holds is new.
        const bool reset = was == nullptr || now.samples < was->samples || now.sum < was->sum;
        add(target, "", name, now.unit, reset ? now.samples : now.samples - was->samples,
            reset ? now.sum : now.sum - was->sum);
      }
    }
  }
  state_->previous = std::move(snap);
  state_->have_previous = true;
  return out;
}

}  // namespace fathom::io
