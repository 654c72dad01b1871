// stats_text.h — Lustre's server statistics as `lctl get_param` prints them, read into values.
//
//   ParseJobStats:      obdfilter.*.job_stats and mdt.*.job_stats, every text generation:
//                       2.4–2.5 (integer snapshot_time, read/write in bytes, "min:%8llu"),
//                       2.6–2.13 (read_bytes/write_bytes, "unit:  reqs"), 2.14 (latencies in
//                       usecs with sumsq), 2.15 ("snapshot_time   : S.N secs.nsecs", not YAML),
//                       2.16+ (indented, start/elapsed times, hist, quoted \xHH-escaped ids).
//   ParseLprocfsStats:  the generic counters of md_stats, stats and exports/*/stats:
//                       "name N samples [unit] min max sum [sumsq]" after the time header.
//   ParseBrwStats:      brw_stats, read by block name ("pages per bulk r/w", "disk I/O size"...)
//                       rather than by line number.
//
// A line that cannot be read is a problem with its line number; the rest is still read. Pure
// functions, any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::lustre {

struct StatsCounter {
  std::string unit;  // bytes, usecs, reqs...
  uint64_t samples = 0;
  bool has_range = false;  // min and max
  uint64_t min = 0;
  uint64_t max = 0;
  bool has_sum = false;
  uint64_t sum = 0;
  bool has_sumsq = false;
  uint64_t sumsq = 0;
  std::vector<std::pair<std::string, uint64_t>> hist;  // "4K" -> n, in the text's order
};

struct TextProblem {
  size_t line = 0;  // 1-based
  std::string message;
};

struct JobStatsEntry {
  std::string job_id;
  uint64_t snapshot_ns = 0;  // the job's last update (not the read)
  bool has_start = false;
  uint64_t start_ns = 0;
  uint64_t elapsed_ns = 0;
  std::map<std::string, StatsCounter> counters;
};

struct JobStatsText {
  std::vector<JobStatsEntry> jobs;
  std::vector<TextProblem> problems;
};

JobStatsText ParseJobStats(std::string_view text);

struct LprocfsStats {
  uint64_t snapshot_ns = 0;
  bool has_start = false;
  uint64_t start_ns = 0;
  uint64_t elapsed_ns = 0;
  std::map<std::string, StatsCounter> counters;  // counters with no sample are not printed
  std::vector<TextProblem> problems;
};

LprocfsStats ParseLprocfsStats(std::string_view text);

struct BrwRow {
  std::string bucket;  // "1", "256", "4K", "1M"...
  uint64_t read = 0;   // rpcs (or ios)
  uint64_t write = 0;
};

struct BrwStats {
  uint64_t snapshot_ns = 0;
  std::map<std::string, std::vector<BrwRow>> blocks;  // by block name
  std::vector<TextProblem> problems;
};

BrwStats ParseBrwStats(std::string_view text);

// What changed between two reads of one target's job_stats: per job, the counters' growth
// (samples, sum, sumsq; min and max as read last). A job whose counters went down, or whose
// start_time moved, was reset (cleared, or purged and seen again): its delta is its counters.
// A job read before and not after has expired (job_cleanup_interval) or was cleared.
struct JobStatsDelta {
  std::string job_id;
  bool reset = false;
  uint64_t interval_ns = 0;  // between the two snapshot times of the job
  std::map<std::string, StatsCounter> counters;
};
struct JobStatsChange {
  std::vector<JobStatsDelta> jobs;
  std::vector<std::string> expired;
};
JobStatsChange DiffJobStats(const JobStatsText& before, const JobStatsText& after);

}  // namespace fathom::lustre
