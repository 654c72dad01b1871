// report_output.cpp — a Report as JSON and as text (`fathom h5 report [--json]`).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"

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
  out["problems"] = r.problems;
  return out.dump(2) + "\n";
}

std::string ReportText(const Report& r) {
  std::string out;
  char line[512];
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
  for (const std::string& p : r.problems) out += "warning: " + p + "\n";
  return out;
}

}  // namespace fathom::h5prov
