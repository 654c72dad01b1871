// report_output.cpp — a Report as JSON and as text (`fathom h5 report [--json]`).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

using nlohmann::json;

std::string Ms(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.3f", static_cast<double>(ns) / 1e6);
  return b;
}

std::string Us(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.1f", static_cast<double>(ns) / 1e3);
  return b;
}

std::string Dims(const std::vector<uint64_t>& v) {
  std::string out;
  for (uint64_t x : v) out += (out.empty() ? "" : "x") + std::to_string(x);
  return out;
}

// One character per bucket: the kind of call that took most of it (r read, w write, m
// metadata), upper case when HDF5 was busy half the bucket or more; '.' idle.
std::string TimelineRow(const std::vector<TimelineBucket>& buckets, uint64_t bucket_ns) {
  std::string row;
  for (const TimelineBucket& b : buckets) {
    const uint64_t busy = b.read_ns + b.write_ns + b.meta_ns;
    char c = b.read_ns >= b.write_ns && b.read_ns >= b.meta_ns ? 'r' : b.write_ns >= b.meta_ns ? 'w' : 'm';
    if (busy == 0) c = '.';
    if (busy > 0 && 2 * busy >= bucket_ns) c = static_cast<char>(c - 'a' + 'A');
    row += c;
  }
  return row;
}

}  // namespace

std::string ReportJson(const Report& r) {
  json out = {{"processes", r.processes}, {"calls", r.calls}, {"hdf5_ns", r.hdf5_ns},
              {"straggler_calls", r.straggler_calls}};
  json functions = json::array();
  for (const FunctionReport& f : r.functions) {
    json buckets = json::object();
    for (const auto& [b, n] : f.latency.log2_buckets) buckets[std::to_string(b)] = n;
    functions.push_back({{"function", f.name}, {"count", f.latency.count}, {"failed", f.failed},
                         {"total_ns", f.latency.total_ns}, {"share", f.share}, {"p50_ns", f.latency.p50_ns},
                         {"p90_ns", f.latency.p90_ns}, {"p99_ns", f.latency.p99_ns},
                         {"max_ns", f.latency.max_ns}, {"log2_ns_buckets", buckets}});
  }
  out["functions"] = functions;
  json stragglers = json::array();
  for (const Straggler& s : r.stragglers) {
    stragglers.push_back({{"function", s.function}, {"trace", s.trace}, {"rank", s.rank}, {"pid", s.pid},
                          {"duration_ns", s.duration_ns}, {"threshold_ns", s.threshold_ns}, {"object", s.object}});
  }
  out["stragglers"] = stragglers;
  json ranks = json::array();
  for (const SlowRank& s : r.slow_ranks) {
    ranks.push_back({{"trace", s.trace}, {"rank", s.rank}, {"pid", s.pid}, {"hdf5_ns", s.hdf5_ns},
                     {"threshold_ns", s.threshold_ns}});
  }
  out["slow_ranks"] = ranks;
  json datasets = json::array();
  for (const DatasetReport& d : r.datasets) {
    datasets.push_back({{"file", d.file}, {"path", d.path}, {"reads", d.reads}, {"writes", d.writes},
                        {"read_bytes", d.read_bytes}, {"write_bytes", d.write_bytes}, {"read_ns", d.read_ns},
                        {"write_ns", d.write_ns}, {"switches", d.switches}});
  }
  out["datasets"] = datasets;
  json worst = json::array();
  for (const CollectiveGroup& g : r.collectives.worst) {
    worst.push_back({{"job", g.job}, {"function", g.function}, {"object", g.object}, {"index", g.index},
                     {"ranks", g.ranks}, {"min_ns", g.min_ns}, {"median_ns", g.median_ns}, {"max_ns", g.max_ns},
                     {"spread_ns", g.spread_ns}, {"slowest_rank", g.slowest_rank}});
  }
  out["collectives"] = {{"groups", r.collectives.groups}, {"worst", worst}};
  json shapes = json::array();
  for (const DatasetShapes& d : r.shapes) {
    json common = json::array();
    for (const AccessShape& a : d.common) common.push_back({{"count", a.count}, {"block", a.block}, {"accesses", a.accesses}});
    shapes.push_back({{"file", d.file}, {"path", d.path}, {"all", d.all}, {"none", d.none}, {"points", d.points},
                      {"regular", d.regular}, {"irregular", d.irregular}, {"chunk", d.chunk}, {"common", common}});
  }
  out["shapes"] = shapes;
  json processes = json::array();
  for (const ProcessTimeline& p : r.timeline.processes) {
    json read = json::array(), write = json::array(), meta = json::array();
    for (const TimelineBucket& b : p.buckets) {
      read.push_back(b.read_ns);
      write.push_back(b.write_ns);
      meta.push_back(b.meta_ns);
    }
    processes.push_back({{"trace", p.trace}, {"rank", p.rank}, {"pid", p.pid}, {"read_ns", read}, {"write_ns", write},
                         {"meta_ns", meta}});
  }
  out["timeline"] = {{"start_wall_ns", r.timeline.start_wall_ns}, {"bucket_ns", r.timeline.bucket_ns},
                     {"buckets", r.timeline.buckets}, {"processes", processes}};
  out["problems"] = r.problems;
  return out.dump(2) + "\n";
}

std::string ReportText(const Report& r) {
  std::string out;
  char line[2048];
  std::snprintf(line, sizeof(line), "%llu process(es), %llu HDF5 calls made by the programs, %s ms in them\n",
                static_cast<unsigned long long>(r.processes), static_cast<unsigned long long>(r.calls),
                Ms(r.hdf5_ns).c_str());
  out += line;
  out += "\nHot functions (by total time)\n";
  std::snprintf(line, sizeof(line), "  %-22s %9s %12s %7s %10s %10s %10s %10s %7s\n", "function", "calls", "total ms",
                "share", "p50 us", "p90 us", "p99 us", "max us", "failed");
  out += line;
  for (const FunctionReport& f : r.functions) {
    std::snprintf(line, sizeof(line), "  %-22s %9llu %12s %6.1f%% %10s %10s %10s %10s %7llu\n", f.name.c_str(),
                  static_cast<unsigned long long>(f.latency.count), Ms(f.latency.total_ns).c_str(), 100 * f.share,
                  Us(f.latency.p50_ns).c_str(), Us(f.latency.p90_ns).c_str(), Us(f.latency.p99_ns).c_str(),
                  Us(f.latency.max_ns).c_str(), static_cast<unsigned long long>(f.failed));
    out += line;
  }
  if (!r.datasets.empty()) {
    out += "\nDatasets (by bytes moved)\n";
    for (const DatasetReport& d : r.datasets) {
      std::snprintf(line, sizeof(line),
                    "  %s:%s  written %llu B in %llu call(s), %s ms; read %llu B in %llu call(s), %s ms; "
                    "%llu read/write switch(es)\n",
                    d.file.c_str(), d.path.c_str(), static_cast<unsigned long long>(d.write_bytes),
                    static_cast<unsigned long long>(d.writes), Ms(d.write_ns).c_str(),
                    static_cast<unsigned long long>(d.read_bytes), static_cast<unsigned long long>(d.reads),
                    Ms(d.read_ns).c_str(), static_cast<unsigned long long>(d.switches));
      out += line;
    }
  }
  std::snprintf(line, sizeof(line), "\nStragglers (above median + 5 MAD and twice the median of their function): %llu call(s)\n",
                static_cast<unsigned long long>(r.straggler_calls));
  out += line;
  for (const Straggler& s : r.stragglers) {
    std::snprintf(line, sizeof(line), "  %-22s %10s us (threshold %s us)  rank %lld pid %llu  %s\n", s.function.c_str(),
                  Us(s.duration_ns).c_str(), Us(s.threshold_ns).c_str(), static_cast<long long>(s.rank),
                  static_cast<unsigned long long>(s.pid), s.object.c_str());
    out += line;
  }
  for (const SlowRank& s : r.slow_ranks) {
    std::snprintf(line, sizeof(line), "  slow process: rank %lld pid %llu spent %s ms in HDF5 (threshold %s ms)\n",
                  static_cast<long long>(s.rank), static_cast<unsigned long long>(s.pid), Ms(s.hdf5_ns).c_str(),
                  Ms(s.threshold_ns).c_str());
    out += line;
  }
  if (r.collectives.groups > 0) {
    std::snprintf(line, sizeof(line), "\nCollective operations compared across ranks: %llu group(s); the widest spreads\n",
                  static_cast<unsigned long long>(r.collectives.groups));
    out += line;
  }
  for (const CollectiveGroup& g : r.collectives.worst) {
    std::snprintf(line, sizeof(line),
                  "  %-14s %s #%llu  job %s  %llu ranks  min %s us  median %s us  max %s us  spread %s us  slowest rank %lld\n",
                  g.function.c_str(), g.object.c_str(), static_cast<unsigned long long>(g.index), g.job.c_str(),
                  static_cast<unsigned long long>(g.ranks), Us(g.min_ns).c_str(), Us(g.median_ns).c_str(),
                  Us(g.max_ns).c_str(), Us(g.spread_ns).c_str(), static_cast<long long>(g.slowest_rank));
    out += line;
  }
  if (!r.shapes.empty()) out += "\nAccess shapes (selections of each dataset's reads and writes)\n";
  for (const DatasetShapes& d : r.shapes) {
    std::snprintf(line, sizeof(line), "  %s:%s  all %llu, none %llu, points %llu, regular %llu, irregular %llu, chunk %llu\n",
                  d.file.c_str(), d.path.c_str(), static_cast<unsigned long long>(d.all),
                  static_cast<unsigned long long>(d.none), static_cast<unsigned long long>(d.points),
                  static_cast<unsigned long long>(d.regular), static_cast<unsigned long long>(d.irregular),
                  static_cast<unsigned long long>(d.chunk));
    out += line;
    for (const AccessShape& a : d.common) {
      out += "    count " + Dims(a.count) + " x block " + Dims(a.block) + ": " + std::to_string(a.accesses) + "\n";
    }
  }
  const Timeline& tl = r.timeline;
  if (!tl.processes.empty()) {
    std::snprintf(line, sizeof(line),
                  "\nTimeline from %s, %s ms a column (r read, w write, m metadata; upper case: in HDF5 half the "
                  "column or more; . idle)\n",
                  analysis::IsoTime(tl.start_wall_ns).c_str(), Ms(tl.bucket_ns).c_str());
    out += line;
  }
  for (const ProcessTimeline& p : tl.processes) {
    std::snprintf(line, sizeof(line), "  rank %3lld pid %-8llu |%s|\n", static_cast<long long>(p.rank),
                  static_cast<unsigned long long>(p.pid), TimelineRow(p.buckets, tl.bucket_ns).c_str());
    out += line;
  }
  for (const std::string& p : r.problems) out += "warning: " + p + "\n";
  return out;
}

}  // namespace fathom::h5prov
