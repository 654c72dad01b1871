// report_output.cpp — a job's report as JSON and as text.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fathom/iotrace.h"

namespace fathom::iotrace {
namespace {

using nlohmann::json;

json Layer(const LayerTotals& l) {
  return {{"read_bytes", l.read_bytes}, {"write_bytes", l.write_bytes}, {"read_ops", l.read_ops},
          {"write_ops", l.write_ops},   {"meta_ops", l.meta_ops},       {"other_ops", l.other_ops}};
}

json Vote(const ModeVote& v) { return {{"mode", v.mode}, {"processes", v.processes}, {"volume", v.volume}}; }

json Sizes(const uint64_t (&sizes)[kSizeBuckets]) {
  json j = json::object();
  for (int i = 0; i < kSizeBuckets; ++i) j[SizeBucketName(i)] = sizes[i];
  return j;
}

std::string Bytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 5) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.2f %s", bytes, kUnits[unit]);
  return text;
}

}  // namespace

std::string ReportJson(const JobReport& r) {
  json j;
  j["job"] = r.job;
  j["images"] = r.images;
  j["processes"] = r.processes;
  j["io_processes"] = r.io_processes;
  j["hosts"] = r.hosts;
  j["first_ns"] = r.first_ns;
  j["last_ns"] = r.last_ns;
  j["files"] = r.files;
  j["posix"] = Layer(r.posix);
  j["stdio"] = Layer(r.stdio);
  j["mpiio"] = Layer(r.mpiio);
  j["operations"] = r.operations;
  j["meta_ops"] = r.meta_ops;
  j["peak_meta_per_second"] = r.peak_meta_per_second;
  j["meta_per_second_in_phases"] = r.meta_per_second_in_phases;
  j["read_sizes"] = Sizes(r.read_sizes);
  j["write_sizes"] = Sizes(r.write_sizes);
  j["reads"] = {{"ops", r.reads.ops}, {"sequential", r.reads.sequential}, {"consecutive", r.reads.consecutive}};
  j["writes"] = {{"ops", r.writes.ops}, {"sequential", r.writes.sequential}, {"consecutive", r.writes.consecutive}};
  j["posix_data_ops"] = r.posix_data_ops;
  j["small_ops"] = r.small_ops;
  j["unaligned_ops"] = r.unaligned_ops;
  j["peak_bandwidth"] = r.peak_bandwidth;
  j["mean_bandwidth"] = r.mean_bandwidth;
  j["mean_iops"] = r.mean_iops;
  json series = json::array();
  static const char* kLayerNames[] = {"posix", "stdio", "mpiio"};
  for (const Second& s : r.series) {
    json layers = json::object();
    for (size_t i = 0; i < s.layers.size(); ++i) {
      const LayerSecond& l = s.layers[i];
      if (l.read_bytes + l.write_bytes + l.data_ops + l.meta_ops == 0) continue;
      layers[kLayerNames[i]] = {{"read_bytes", l.read_bytes}, {"write_bytes", l.write_bytes},
                                {"data_ops", l.data_ops}, {"meta_ops", l.meta_ops}};
    }
    series.push_back({{"second", s.second}, {"read_bytes", s.read_bytes}, {"write_bytes", s.write_bytes},
                      {"data_ops", s.data_ops}, {"meta_ops", s.meta_ops}, {"layers", std::move(layers)}});
  }
  j["series"] = std::move(series);
  json processes = json::array();
  for (const ProcessSummary& p : r.per_process) {
    processes.push_back({{"host", p.host}, {"pid", p.pid}, {"rank", p.rank}, {"exe", p.exe},
                         {"read_bytes", p.read_bytes}, {"write_bytes", p.write_bytes}, {"data_ops", p.data_ops},
                         {"meta_ops", p.meta_ops}, {"io_ns", p.io_ns}, {"killed", p.killed}});
  }
  j["per_process"] = std::move(processes);
  j["read_mode"] = Vote(r.read_mode);
  j["write_mode"] = Vote(r.write_mode);
  j["mode"] = r.mode;
  json phases = json::array();
  for (const Phase& p : r.phases) {
    phases.push_back({{"first_second", p.first_second}, {"last_second", p.last_second},
                      {"read_bytes", p.read_bytes}, {"write_bytes", p.write_bytes}, {"data_ops", p.data_ops},
                      {"meta_ops", p.meta_ops}, {"read_mode", Vote(p.read)}, {"write_mode", Vote(p.write)}});
  }
  j["phases"] = std::move(phases);
  j["dropped"] = r.dropped;
  j["partial_calls"] = r.partial_calls;
  j["killed"] = r.killed;
  j["problems"] = r.problems;
  json findings = json::array();
  for (const Finding& f : r.findings) findings.push_back({{"kind", f.kind}, {"text", f.text}});
  j["findings"] = std::move(findings);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string ReportText(const JobReport& r) {
  std::string out;
  char line[512];
  auto put = [&](const char* format, auto... args) {
    std::snprintf(line, sizeof(line), format, args...);
    out += line;
  };
  const double seconds = r.last_ns > r.first_ns ? static_cast<double>(r.last_ns - r.first_ns) / 1e9 : 0.0;
  put("job %s: %llu processes (%llu moving data) on %zu host(s), %llu process images, %.3f s of I/O\n", r.job.c_str(),
      static_cast<unsigned long long>(r.processes), static_cast<unsigned long long>(r.io_processes), r.hosts.size(),
      static_cast<unsigned long long>(r.images), seconds);
  put("I/O mode: %s (reads %s, writes %s)\n", r.mode.c_str(), r.read_mode.mode.c_str(), r.write_mode.mode.c_str());
  put("%-8s %14s %14s %12s %12s %12s\n", "layer", "read", "written", "reads", "writes", "metadata");
  const std::pair<const char*, const LayerTotals*> layers[] = {{"POSIX", &r.posix}, {"STDIO", &r.stdio}, {"MPI-IO", &r.mpiio}};
  for (const auto& [name, l] : layers) {
    put("%-8s %14s %14s %12llu %12llu %12llu\n", name, Bytes(static_cast<double>(l->read_bytes)).c_str(),
        Bytes(static_cast<double>(l->write_bytes)).c_str(), static_cast<unsigned long long>(l->read_ops),
        static_cast<unsigned long long>(l->write_ops), static_cast<unsigned long long>(l->meta_ops));
  }
  put("bandwidth: peak %s/s, mean %s/s over the phases; %.0f data operations/s\n", Bytes(r.peak_bandwidth).c_str(),
      Bytes(r.mean_bandwidth).c_str(), r.mean_iops);
  put("metadata: %llu operations, peak %llu/s, %.0f/s over the phases\n", static_cast<unsigned long long>(r.meta_ops),
      static_cast<unsigned long long>(r.peak_meta_per_second), r.meta_per_second_in_phases);
  if (!r.operations.empty()) {
    out += "operations:";
    for (const auto& [name, count] : r.operations) put(" %s %llu", name.c_str(), static_cast<unsigned long long>(count));
    out += "\n";
  }
  out += "POSIX access sizes (reads / writes):";
  for (int i = 0; i < kSizeBuckets; ++i) {
    if (r.read_sizes[i] + r.write_sizes[i] == 0) continue;
    put(" %s %llu/%llu", SizeBucketName(i), static_cast<unsigned long long>(r.read_sizes[i]),
        static_cast<unsigned long long>(r.write_sizes[i]));
  }
  out += "\n";
  put("POSIX sequential: reads %llu of %llu (consecutive %llu), writes %llu of %llu (consecutive %llu)\n",
      static_cast<unsigned long long>(r.reads.sequential), static_cast<unsigned long long>(r.reads.ops),
      static_cast<unsigned long long>(r.reads.consecutive), static_cast<unsigned long long>(r.writes.sequential),
      static_cast<unsigned long long>(r.writes.ops), static_cast<unsigned long long>(r.writes.consecutive));
  for (size_t i = 0; i < r.phases.size(); ++i) {
    const Phase& p = r.phases[i];
    put("phase %zu: seconds %lld-%lld, read %s, written %s, %llu data and %llu metadata operations, mode reads %s "
        "writes %s\n",
        i + 1, static_cast<long long>(p.first_second - r.phases.front().first_second),
        static_cast<long long>(p.last_second - r.phases.front().first_second),
        Bytes(static_cast<double>(p.read_bytes)).c_str(), Bytes(static_cast<double>(p.write_bytes)).c_str(),
        static_cast<unsigned long long>(p.data_ops), static_cast<unsigned long long>(p.meta_ops),
        p.read.mode.c_str(), p.write.mode.c_str());
  }
  for (const Finding& f : r.findings) put("finding (%s): %s\n", f.kind.c_str(), f.text.c_str());
  for (const std::string& p : r.problems) put("problem: %s\n", p.c_str());
  return out;
}

}  // namespace fathom::iotrace
