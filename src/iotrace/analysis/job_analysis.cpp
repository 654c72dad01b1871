// job_analysis.cpp — a job's I/O from its traces (`fathom io report`), computed from the runs
// without expanding them, so that a trace of millions of operations is read in its own size.
#include <algorithm>
#include <set>

#include "fathom/iotrace.h"
#include "iotrace/analysis/job_pieces.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using analysis::AccessRun;
using analysis::DataPiece;
using analysis::FileKey;
using analysis::SystemPath;

constexpr uint64_t kSecond = 1'000'000'000;
constexpr int64_t kMaxSeries = 10'000'000;  // seconds: a longer span is a clock problem

struct Builder {
  const AnalysisOptions& options;
  JobReport report;
  std::map<std::string, size_t> process_index;     // host:pid
  std::map<std::string, uint64_t> last_image;      // host:pid → anchor of its last image
  std::map<std::string, size_t> file_index;
  std::map<int64_t, Second> seconds;
  std::vector<DataPiece> pieces;
  std::map<std::tuple<size_t, size_t, bool>, std::vector<AccessRun>> access;  // process, file, write
  std::map<size_t, std::pair<uint64_t, uint64_t>> first_write_and_last_read;   // file → wall ns
  std::map<size_t, std::string> file_paths;
  std::set<std::string> hosts;

  explicit Builder(const AnalysisOptions& o) : options(o) {}

  size_t Process(const Trace& t) {
    const std::string key = t.process.host + ":" + std::to_string(t.process.pid);
    auto [it, added] = process_index.emplace(key, report.per_process.size());
    if (added) {
      ProcessSummary p;
      p.host = t.process.host;
      p.pid = t.process.pid;
      p.rank = t.process.rank;
      p.exe = t.process.exe;
      report.per_process.push_back(p);
    }
    ProcessSummary& p = report.per_process[it->second];
    if (t.process.rank >= 0) p.rank = t.process.rank;
    // The process was killed if its last image has no end record.
    auto [last, first_seen] = last_image.emplace(key, t.process.anchor_monotonic_ns);
    if (first_seen || t.process.anchor_monotonic_ns >= last->second) {
      last->second = t.process.anchor_monotonic_ns;
      p.killed = t.end == End::kNone;
      p.exe = t.process.exe;
    }
    return it->second;
  }

  size_t File(const Object& o) {
    auto [it, added] = file_index.emplace(FileKey(o), file_index.size());
    if (added) file_paths[it->second] = o.path;
    return it->second;
  }

  Second& At(int64_t second) {
    Second& s = seconds[second];
    s.second = second;
    return s;
  }

  void AddRun(const Trace& t, size_t process, const Run& r) {
    const f::OpInfo info = f::Info(r.op);
    auto object = t.objects.find(r.target);
    const Object unknown{0, 0, "(object " + std::to_string(r.target) + " of " + t.file + ")"};
    const Object& o = object != t.objects.end() ? object->second : unknown;
    if (!options.all_files && SystemPath(o.path)) return;
    const int64_t wall_offset = static_cast<int64_t>(t.process.anchor_realtime_ns - t.process.anchor_monotonic_ns);
    const uint64_t first = static_cast<uint64_t>(static_cast<int64_t>(r.t_first) + wall_offset);
    const uint64_t last = static_cast<uint64_t>(static_cast<int64_t>(r.t_last) + wall_offset);
    report.first_ns = report.first_ns == 0 ? first : std::min(report.first_ns, first);
    report.last_ns = std::max(report.last_ns, last);
    report.operations[OpName(r.op)] += r.count;

    LayerTotals& layer = info.layer == f::Layer::kPosix ? report.posix
                         : info.layer == f::Layer::kStdio ? report.stdio
                                                           : report.mpiio;
    ProcessSummary& p = report.per_process[process];
    const int64_t second = static_cast<int64_t>(first / kSecond);
    const size_t layer_index = static_cast<size_t>(info.layer);
    if (info.op_class == f::OpClass::kMeta) {
      layer.meta_ops += r.count;
      report.meta_ops += r.count;
      p.meta_ops += r.count;
      At(second).meta_ops += r.count;
      At(second).layers[layer_index].meta_ops += r.count;
      return;
    }
    if (info.op_class == f::OpClass::kOther) {
      layer.other_ops += r.count;
      return;
    }
    const bool write = info.op_class == f::OpClass::kWrite;
    const uint64_t bytes = r.result > 0 ? r.count * static_cast<uint64_t>(r.result) : 0;
    (write ? layer.write_ops : layer.read_ops) += r.count;
    (write ? layer.write_bytes : layer.read_bytes) += bytes;
    p.data_ops += r.count;
    (write ? p.write_bytes : p.read_bytes) += bytes;
    p.io_ns += r.duration_sum;
    // A run lies within one quantum; with quanta longer than a second its bytes are spread
    // over the seconds its operations started in, evenly.
    const int64_t last_second = static_cast<int64_t>(last / kSecond);
    const uint64_t spread = static_cast<uint64_t>(last_second - second + 1);
    for (int64_t s = second; s <= last_second && s - second < kMaxSeries; ++s) {
      Second& at = At(s);
      (write ? at.write_bytes : at.read_bytes) += bytes / spread;
      at.data_ops += r.count / spread;
      LayerSecond& in_layer = at.layers[layer_index];
      (write ? in_layer.write_bytes : in_layer.read_bytes) += bytes / spread;
      in_layer.data_ops += r.count / spread;
    }
    const size_t file = File(o);
    // Modes and findings count the bytes once: MPI-IO's reach the file through the POSIX calls
    // its library makes, which are traced too.
    if (bytes > 0 && info.layer != f::Layer::kMpiIo) {
      pieces.push_back({second, write, file, process, bytes});
      auto& times = first_write_and_last_read[file];
      if (write) times.first = times.first == 0 ? first : std::min(times.first, first);
      if (!write) times.second = std::max(times.second, last);
    }
    if (info.layer != f::Layer::kPosix || r.op == f::kMmap) return;
    report.posix_data_ops += r.count;
    if (r.result >= 0) (write ? report.write_sizes : report.read_sizes)[SizeBucket(static_cast<uint64_t>(r.result))] += r.count;
    if (r.size < 4096) report.small_ops += r.count;
    if (r.has_offset) {
      report.unaligned_ops += analysis::UnalignedOffsets(r.offset, r.stride, r.count, 4096);
      access[{process, file, write}].push_back({first, r.offset, r.stride, r.count, r.result > 0 ? r.result : 0});
    }
  }

  void Finish() {
    report.processes = report.per_process.size();
    for (const ProcessSummary& p : report.per_process) {
      report.io_processes += p.read_bytes + p.write_bytes > 0 ? 1 : 0;
      report.killed += p.killed ? 1 : 0;
    }
    report.hosts.assign(hosts.begin(), hosts.end());
    report.files = 0;
    std::set<size_t> moved;
    for (const DataPiece& piece : pieces) moved.insert(piece.file);
    report.files = moved.size();
    for (const auto& [key, runs] : access) {
      const SequentialCounts c = analysis::CountSequential(runs);
      SequentialCounts& total = std::get<2>(key) ? report.writes : report.reads;
      total.ops += c.ops;
      total.sequential += c.sequential;
      total.consecutive += c.consecutive;
    }
    if (!seconds.empty()) {
      const int64_t from = seconds.begin()->first;
      const int64_t to = std::min(seconds.rbegin()->first, from + kMaxSeries);
      for (int64_t s = from; s <= to; ++s) {
        auto it = seconds.find(s);
        Second second = it != seconds.end() ? it->second : Second{};
        second.second = s;
        report.series.push_back(second);
      }
    }
    report.read_mode = analysis::ClassifyModes(pieces, false, INT64_MIN, INT64_MAX);
    report.write_mode = analysis::ClassifyModes(pieces, true, INT64_MIN, INT64_MAX);
    std::map<std::string, uint64_t> both = report.read_mode.volume;
    for (const auto& [mode, bytes] : report.write_mode.volume) both[mode] += bytes;
    report.mode = VoteMode(both);
    FindPhases();
  }

  void FindPhases() {
    uint64_t peak_bytes = 0, peak_meta = 0;
    for (const Second& s : report.series) {
      peak_bytes = std::max(peak_bytes, s.read_bytes + s.write_bytes);
      peak_meta = std::max(peak_meta, s.meta_ops);
    }
    report.peak_bandwidth = static_cast<double>(peak_bytes);
    report.peak_meta_per_second = peak_meta;
    // Activity: bytes, or metadata operations in a job that moves no data.
    auto activity = [&](const Second& s) -> double {
      return peak_bytes > 0 ? static_cast<double>(s.read_bytes + s.write_bytes) : static_cast<double>(s.meta_ops);
    };
    const double peak = peak_bytes > 0 ? static_cast<double>(peak_bytes) : static_cast<double>(peak_meta);
    if (peak == 0) return;
    const double threshold = options.phase_threshold * peak;
    std::vector<std::pair<size_t, size_t>> stretches;  // indexes into series
    for (size_t i = 0; i < report.series.size(); ++i) {
      if (activity(report.series[i]) <= threshold) continue;
      if (!stretches.empty() &&
          static_cast<int64_t>(i - stretches.back().second) <= options.phase_gap + 1) {
        stretches.back().second = i;
      } else {
        stretches.push_back({i, i});
      }
    }
    uint64_t phase_seconds = 0, phase_bytes = 0, phase_ops = 0, phase_meta = 0;
    for (const auto& [from, to] : stretches) {
      Phase phase;
      phase.first_second = report.series[from].second;
      phase.last_second = report.series[to].second;
      for (size_t i = from; i <= to; ++i) {
        phase.read_bytes += report.series[i].read_bytes;
        phase.write_bytes += report.series[i].write_bytes;
        phase.data_ops += report.series[i].data_ops;
        phase.meta_ops += report.series[i].meta_ops;
      }
      phase.read = analysis::ClassifyModes(pieces, false, phase.first_second, phase.last_second);
      phase.write = analysis::ClassifyModes(pieces, true, phase.first_second, phase.last_second);
      phase_seconds += static_cast<uint64_t>(phase.last_second - phase.first_second + 1);
      phase_bytes += phase.read_bytes + phase.write_bytes;
      phase_ops += phase.data_ops;
      phase_meta += phase.meta_ops;
      report.phases.push_back(std::move(phase));
    }
    if (phase_seconds > 0) {
      report.mean_bandwidth = static_cast<double>(phase_bytes) / static_cast<double>(phase_seconds);
      report.mean_iops = static_cast<double>(phase_ops) / static_cast<double>(phase_seconds);
      report.meta_per_second_in_phases = static_cast<double>(phase_meta) / static_cast<double>(phase_seconds);
    }
  }
};

}  // namespace

Result<JobReport> AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options) {
  if (traces.empty()) return Status::Error("no traces to analyse");
  Builder b(options);
  b.report.job = traces.front().process.job;
  for (const Trace& t : traces) {
    if (t.has_process && t.process.job != b.report.job) {
      return Status::Error("the traces belong to several jobs (" + b.report.job + ", " + t.process.job +
                           "); report one job's directory at a time");
    }
    ++b.report.images;
    b.hosts.insert(t.process.host);
    b.report.dropped += t.Dropped();
    b.report.partial_calls += t.io_uring_calls + t.aio_calls;
    b.report.problems.insert(b.report.problems.end(), t.problems.begin(), t.problems.end());
    const size_t process = b.Process(t);
    for (const Run& r : t.runs) b.AddRun(t, process, r);
  }
  b.Finish();
  analysis::AddFindings(b.report, b.first_write_and_last_read, b.file_paths, b.pieces);
  return std::move(b.report);
}

}  // namespace fathom::iotrace
