// h5_report.cpp — Analyze(): hot functions, latencies, stragglers and datasets from traces.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <tuple>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

using analysis::Median;
using analysis::ObjectName;

constexpr double kMadFactor = 5;
constexpr size_t kStragglersListed = 20;

// median + kMadFactor·MAD, and at least twice the median.
uint64_t Threshold(const std::vector<uint64_t>& v) {
  const uint64_t median = Median(v);
  std::vector<uint64_t> deviations;
  deviations.reserve(v.size());
  for (uint64_t x : v) deviations.push_back(x > median ? x - median : median - x);
  const uint64_t mad = Median(deviations);
  return std::max<uint64_t>(median + static_cast<uint64_t>(kMadFactor * static_cast<double>(mad)), 2 * median);
}

// Nearest rank: the smallest value with at least p of the values at or below it.
uint64_t Percentile(const std::vector<uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

Latency LatencyOf(std::vector<uint64_t> durations) {
  Latency l;
  std::sort(durations.begin(), durations.end());
  l.count = durations.size();
  for (uint64_t d : durations) {
    l.total_ns += d;
    ++l.log2_buckets[d == 0 ? 0 : std::bit_width(d) - 1];
  }
  l.p50_ns = Percentile(durations, 0.50);
  l.p90_ns = Percentile(durations, 0.90);
  l.p99_ns = Percentile(durations, 0.99);
  l.max_ns = durations.empty() ? 0 : durations.back();
  return l;
}

}  // namespace

Report Analyze(const std::vector<Trace>& traces) {
  Report report;
  report.processes = traces.size();
  struct Sample {
    size_t trace;
    const Call* call;
  };
  std::map<std::string, std::vector<Sample>> by_function;
  std::map<std::pair<std::string, std::string>, DatasetReport> datasets;
  std::map<std::tuple<size_t, std::string, std::string>, int> last_direction;  // per process: 1 read, 2 write
  std::vector<uint64_t> per_process(traces.size(), 0);
  for (size_t i = 0; i < traces.size(); ++i) {
    const Trace& t = traces[i];
    for (const std::string& p : t.problems) report.problems.push_back(p);
    for (const Call& c : t.calls) {
      if (c.parent != 0) continue;
      ++report.calls;
      report.hdf5_ns += c.duration;
      per_process[i] += c.duration;
      by_function[OpName(c.op)].push_back({i, &c});
      const std::optional<analysis::DatasetAccess> access = analysis::AccessOf(t, c);
      if (!access) continue;
      const std::pair<std::string, std::string> key{analysis::FilePath(*access), access->dataset->path};
      DatasetReport& d = datasets[key];
      d.file = key.first;
      d.path = key.second;
      const bool write = access->write;
      (write ? d.writes : d.reads) += 1;
      (write ? d.write_bytes : d.read_bytes) += c.file_bytes;
      (write ? d.write_ns : d.read_ns) += c.duration;
      int& last = last_direction[{i, key.first, key.second}];
      const int now = write ? 2 : 1;
      if (last != 0 && last != now) ++d.switches;
      last = now;
    }
  }
  std::vector<Straggler> stragglers;
  for (const auto& [name, samples] : by_function) {
    FunctionReport f;
    f.name = name;
    std::vector<uint64_t> durations;
    for (const Sample& s : samples) {
      durations.push_back(s.call->duration);
      f.failed += s.call->failed ? 1 : 0;
    }
    f.latency = LatencyOf(durations);
    f.share = report.hdf5_ns > 0 ? static_cast<double>(f.latency.total_ns) / static_cast<double>(report.hdf5_ns) : 0;
    if (samples.size() >= 2) {
      const uint64_t threshold = Threshold(durations);
      for (const Sample& s : samples) {
        if (s.call->duration <= threshold) continue;
        const Trace& t = traces[s.trace];
        stragglers.push_back({name, t.file, t.process.rank, t.process.pid, s.call->duration, threshold,
                              ObjectName(t, s.call->object)});
      }
    }
    report.functions.push_back(std::move(f));
  }
  std::sort(report.functions.begin(), report.functions.end(), [](const FunctionReport& a, const FunctionReport& b) {
    return std::tie(b.latency.total_ns, a.name) < std::tie(a.latency.total_ns, b.name);
  });
  report.straggler_calls = stragglers.size();
  std::sort(stragglers.begin(), stragglers.end(), [](const Straggler& a, const Straggler& b) {
    return std::tie(b.duration_ns, a.trace, a.function) < std::tie(a.duration_ns, b.trace, b.function);
  });
  if (stragglers.size() > kStragglersListed) stragglers.resize(kStragglersListed);
  report.stragglers = std::move(stragglers);
  if (traces.size() >= 2) {
    const uint64_t threshold = Threshold(per_process);
    for (size_t i = 0; i < traces.size(); ++i) {
      if (per_process[i] > threshold) {
        report.slow_ranks.push_back({traces[i].file, traces[i].process.rank, traces[i].process.pid, per_process[i],
                                     threshold});
      }
    }
  }
  for (auto& [key, d] : datasets) report.datasets.push_back(std::move(d));
  std::sort(report.datasets.begin(), report.datasets.end(), [](const DatasetReport& a, const DatasetReport& b) {
    const uint64_t moved_a = a.read_bytes + a.write_bytes, moved_b = b.read_bytes + b.write_bytes;
    return std::tie(moved_b, a.file, a.path) < std::tie(moved_a, b.file, b.path);
  });
  report.collectives = CompareCollectives(traces);
  report.shapes = AccessShapes(traces);
  report.timeline = BuildTimeline(traces);
  return report;
}

}  // namespace fathom::h5prov
