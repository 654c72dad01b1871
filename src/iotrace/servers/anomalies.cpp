// FindAnomalies: targets serving like work much slower than their peers (io_servers.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "fathom/io_servers.h"

namespace fathom::io {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// What one target did for one job (or in total) over the window.
struct Work {
  std::map<int64_t, uint64_t> bytes_at;  // interval end -> bytes read and written
  std::map<int64_t, int64_t> length_at;  // interval end -> its length
  uint64_t bytes = 0;
  uint64_t usecs = 0;  // service time of the reads and writes
};

// The kind of target, so that only like targets are peers.
std::string KindOf(const std::string& target) {
  if (target.find(".exports.") != std::string::npos) return "export";
  if (target.find("-OST") != std::string::npos) return "ost";
  if (target.find("-MDT") != std::string::npos) return "mdt";
  const size_t colon = target.find(':');
  return colon == std::string::npos ? "other" : target.substr(0, colon);
}

struct Figures {
  const std::string* target = nullptr;
  const Work* work = nullptr;
  double avg_bw = 0;
  double peak_bw = 0;
  double usecs_per_mib = 0;
};

Figures FiguresOf(const std::string& target, const Work& w) {
  Figures f;
  f.target = &target;
  f.work = &w;
  int64_t working_ns = 0;
  for (const auto& [ts, bytes] : w.bytes_at) {
    const int64_t len = std::max<int64_t>(w.length_at.at(ts), 1);
    working_ns += len;
    f.peak_bw = std::max(f.peak_bw, static_cast<double>(bytes) * 1e9 / static_cast<double>(len));
  }
  f.avg_bw =
      working_ns > 0 ? static_cast<double>(w.bytes) * 1e9 / static_cast<double>(working_ns) : 0;
  f.usecs_per_mib = static_cast<double>(w.usecs) / (static_cast<double>(w.bytes) / kMiB);
  return f;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The peers of one job (or of the totals) and one kind.
void Compare(const std::string& job, const std::vector<Figures>& peers,
             const AnomalyOptions& options, std::vector<Anomaly>& out) {
  if (peers.size() < 3) return;  // two targets cannot say which one is odd
  std::vector<double> service;
  for (const Figures& f : peers) service.push_back(f.usecs_per_mib);
  const double median = Median(service);
  std::vector<double> deviations;
  for (double x : service) deviations.push_back(std::fabs(x - median));
  const double mad = Median(deviations);
  for (const Figures& f : peers) {
    double others_peak = 0, others_bytes = 0;
    for (const Figures& g : peers) {
      if (&g == &f) continue;
      others_peak += g.peak_bw;
      others_bytes += static_cast<double>(g.work->bytes);
    }
    others_peak /= static_cast<double>(peers.size() - 1);
    others_bytes /= static_cast<double>(peers.size() - 1);
    const bool beacon =
        f.avg_bw < options.beacon_bandwidth_fraction * others_peak &&
        f.peak_bw < options.beacon_bandwidth_fraction * others_peak &&
        static_cast<double>(f.work->bytes) >= options.beacon_volume_fraction * others_bytes;
    const double z = mad > 0 ? 0.6745 * (f.usecs_per_mib - median) / mad : 0;
    const bool robust = mad > 0 && z > options.z_threshold &&
                        f.usecs_per_mib >= options.min_ratio * median &&
                        f.usecs_per_mib - median >= options.min_excess_usecs_per_mib;
    if (!beacon && !robust) continue;
    Anomaly a;
    a.target = *f.target;
    a.job = job;
    a.rule = beacon && robust ? "beacon+z-score" : beacon ? "beacon" : "z-score";
    a.bytes = f.work->bytes;
    a.avg_bw = f.avg_bw;
    a.peak_bw = f.peak_bw;
    a.peers_mean_peak_bw = others_peak;
    a.peers_mean_bytes = others_bytes;
    a.usecs_per_mib = f.usecs_per_mib;
    a.peers_median_usecs_per_mib = median;
    a.z = z;
    a.first_ns = f.work->bytes_at.begin()->first - f.work->length_at.begin()->second;
    a.last_ns = f.work->bytes_at.rbegin()->first;
    a.duration = DurationBucket(a.last_ns - a.first_ns);
    a.peers = peers.size();
    out.push_back(std::move(a));
  }
}

}  // namespace

std::string DurationBucket(int64_t span_ns) {
  constexpr int64_t kHour = 3600LL * 1'000'000'000;
  if (span_ns <= kHour) return "1h";
  if (span_ns <= 4 * kHour) return "4h";
  if (span_ns <= 12 * kHour) return "12h";
  if (span_ns <= 96 * kHour) return "96h";
  return ">96h";
}

std::vector<Anomaly> FindAnomalies(const std::vector<ServerSample>& samples,
                                   const AnomalyOptions& options) {
  // (job, target) -> its work; jobs "" are the targets' totals.
  std::map<std::pair<std::string, std::string>, Work> work;
  for (const ServerSample& s : samples) {
    const bool bytes = s.counter == "read_bytes" || s.counter == "write_bytes";
    const bool time = s.counter == "read" || s.counter == "write";
    if (!bytes && !time) continue;
    Work& w = work[{s.job, s.target}];
    if (bytes) {
      w.bytes += s.sum;
      w.bytes_at[s.ts_ns] += s.sum;
      w.length_at[s.ts_ns] = s.interval_ns;
    } else if (s.unit == "usecs") {
      w.usecs += s.sum;
    }
  }
  // (job, kind) -> the targets that moved enough to be compared.
  std::map<std::pair<std::string, std::string>, std::vector<Figures>> groups;
  for (const auto& [key, w] : work) {
    if (w.bytes < options.min_bytes || w.bytes_at.empty()) continue;
    groups[{key.first, KindOf(key.second)}].push_back(FiguresOf(key.second, w));
  }
  std::vector<Anomaly> out;
  for (const auto& [key, peers] : groups) Compare(key.first, peers, options, out);
  std::sort(out.begin(), out.end(), [](const Anomaly& a, const Anomaly& b) {
    return std::tie(a.job, a.target) < std::tie(b.job, b.target);
  });
  return out;
}

}  // namespace fathom::io
