// io_servers.h — the server side of I/O monitoring: sampling the storage servers' statistics
// into a samples file, and finding the targets that serve like work much slower than their
// peers (`fathom io servers`, `fathom io anomalies`; docs/io.md).
//
// Sampling. Each read takes, through `lctl get_param`, Lustre's obdfilter.*.job_stats,
// mdt.*.job_stats, obdfilter.*.stats and mdt.*.md_stats by default, and whatever else is
// asked: brw_stats (each row of each block becomes two counters of requests, "read BLOCK
// BUCKET" and "write BLOCK BUCKET"), exports.*.stats (a target per export), any lprocfs stats
// (every text generation the readers of src/lustre/stats_text.h know), and on a machine with local
// devices or NFS mounts /proc/diskstats and /proc/self/mountstats; it keeps what grew since the
// previous read, per target, job and counter. A counter that went down was reset (cleared, or the
// job purged and seen again): its growth is its new value. Problems (a line that cannot be read,
// lctl missing or failing) are reported with the read and never stop the others.
//
// The samples file is SQLite (WAL; one writer): one row per (time, target, job, counter).
//
// Anomalies. Over a window, per target: its volume (bytes read and written), its average and
// peak bandwidth over the intervals in which it worked, and its service time per MiB. A
// target is flagged
//   - by Beacon's rule: average and peak bandwidth both below half its peers' mean peak while
//     it carried at least 0.6 times their mean volume; and/or
//   - by a robust z-score of its service time per MiB among its peers (median and MAD,
//     z = 0.6745 (x - median) / MAD) above 3.5, when that time is also at least 3 times the
//     median and 10 ms per MiB above it (a difference that matters, not only one the
//     statistics can tell: a few milliseconds of jitter on fast targets is not a slow one).
// Peers are the targets of the same kind (OSTs, MDTs, devices) that worked in the window,
// within one job (per job) and across jobs (totals). A flagged target's duration (its first to
// its last slow interval) is put in Beacon's buckets: up to 1 h, 4 h, 12 h, 96 h, longer.
//
// Ownership: values; a SampleStore owns its database connection. Threading: a ServerSampler
// and a SampleStore are each used from one thread at a time; FindAnomalies is pure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom::io {

// The growth of one counter over one interval.
struct ServerSample {
  int64_t ts_ns = 0;        // the end of the interval (wall clock)
  int64_t interval_ns = 0;  // its length
  std::string target;       // "testfs-OST0002", "testfs-MDT0000", "disk:sda", "nfs:srv:/export"
  std::string job;          // "" for the target's totals
  std::string counter;      // "write_bytes", "write", "open", ...
  std::string unit;         // "bytes", "usecs", "reqs"
  uint64_t samples = 0;
  uint64_t sum = 0;
};

struct SamplerOptions {
  std::string lctl = "lctl";  // "" for none (local statistics only)
  std::vector<std::string> params = {"obdfilter.*.job_stats", "mdt.*.job_stats",
                                     "obdfilter.*.stats", "mdt.*.md_stats"};
  std::string diskstats = "/proc/diskstats";         // "" for none
  std::string mountstats = "/proc/self/mountstats";  // "" for none
};

struct SampleRead {
  std::vector<ServerSample> samples;  // empty on the first read (the baseline)
  std::vector<std::string> problems;  // "obdfilter.testfs-OST0001.job_stats line 7: ..."
};

class ServerSampler {
 public:
  explicit ServerSampler(SamplerOptions options);
  ~ServerSampler();
  ServerSampler(const ServerSampler&) = delete;
  ServerSampler& operator=(const ServerSampler&) = delete;

  // Reads every source once and returns what grew since the previous read.
  SampleRead Read();

 private:
  struct State;
  SamplerOptions options_;
  std::unique_ptr<State> state_;
};

class SampleStore {
 public:
  // Creates the file when `create`; a file that is not a samples file is refused by name.
  static Result<std::unique_ptr<SampleStore>> Open(const std::string& path, bool create);
  virtual ~SampleStore() = default;
  virtual Status Append(const std::vector<ServerSample>& samples) = 0;
  // Samples with since_ns <= ts_ns <= until_ns, in time order.
  virtual Result<std::vector<ServerSample>> Read(int64_t since_ns, int64_t until_ns) = 0;
  // The newest sample's time, 0 when empty.
  virtual Result<int64_t> Newest() = 0;
};

struct AnomalyOptions {
  double beacon_bandwidth_fraction = 0.5;  // of the peers' mean peak
  double beacon_volume_fraction = 0.6;     // of the peers' mean volume
  double z_threshold = 3.5;
  double min_ratio = 3;  // of the peers' median service time, for the z-score rule
  double min_excess_usecs_per_mib = 10000;  // over that median, for the z-score rule
  uint64_t min_bytes = 1 << 20;             // targets that moved less are not compared
};

struct Anomaly {
  std::string target;
  std::string job;   // "" when found across jobs
  std::string rule;  // "beacon", "z-score" or "beacon+z-score"
  uint64_t bytes = 0;
  double avg_bw = 0;  // bytes per second, over its working intervals
  double peak_bw = 0;
  double peers_mean_peak_bw = 0;
  double peers_mean_bytes = 0;
  double usecs_per_mib = 0;
  double peers_median_usecs_per_mib = 0;
  double z = 0;
  int64_t first_ns = 0;  // its first and last working interval
  int64_t last_ns = 0;
  std::string duration;  // "1h", "4h", "12h", "96h" or ">96h"
  size_t peers = 0;
};

std::vector<Anomaly> FindAnomalies(const std::vector<ServerSample>& samples,
                                   const AnomalyOptions& options);

// Beacon's duration bucket of a span.
std::string DurationBucket(int64_t span_ns);

}  // namespace fathom::io
