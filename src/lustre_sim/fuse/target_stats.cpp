#include "lustre_sim/fuse/target_stats.h"

#include <cinttypes>
#include <cstdio>

#include "lustre_sim/state/registry.h"

namespace fathom::lustre_sim {
namespace {

constexpr const char* kOstNames[] = {
    "read_bytes", "write_bytes", "read",   "write",    "getattr",  "setattr",  "punch",   "sync",
    "destroy",    "create",      "statfs", "get_info", "set_info", "quotactl", "prealloc"};
constexpr const char* kMdtNames[] = {"open",
                                     "close",
                                     "mknod",
                                     "link",
                                     "unlink",
                                     "mkdir",
                                     "rmdir",
                                     "rename",
                                     "getattr",
                                     "setattr",
                                     "getxattr",
                                     "setxattr",
                                     "statfs",
                                     "sync",
                                     "samedir_rename",
                                     "parallel_rename_file",
                                     "parallel_rename_dir",
                                     "crossdir_rename",
                                     "read_bytes",
                                     "write_bytes",
                                     "read",
                                     "write",
                                     "punch",
                                     "migrate",
                                     "fallocate",
                                     "readpage"};
static_assert(std::size(kOstNames) == static_cast<size_t>(OstOp::kCount));
static_assert(std::size(kMdtNames) == static_cast<size_t>(MdtOp::kCount));

std::string Time(TargetStats::Clock::duration since_epoch) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count();
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%" PRId64 ".%09" PRId64 " secs.nsecs", ns / 1000000000,
                ns % 1000000000);
  return buf;
}

// A 2.16 server quotes an id with a byte outside printable ASCII, a ':' or a leading '@', and
// writes such bytes, '"' and '\' as escapes.
std::string QuotedJobId(const std::string& id) {
  bool plain = !id.empty() && id[0] != '@';
  for (unsigned char c : id)
    plain = plain && c > 0x20 && c < 0x7f && c != ':' && c != '"' && c != '\\';
  if (plain) return id;
  std::string out = "\"";
  for (unsigned char c : id) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\x%02x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A log2 bucket's name as hist prints it: 1, 2, … 512, 1K … 512K, 1M … 512M, 1G …
std::string BucketName(int log2) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  const int unit = std::min(log2 / 10, 4);
  return std::to_string(1ULL << (log2 - unit * 10)) + kSuffix[unit];
}

}  // namespace

void TargetStats::Counter::Add(uint64_t value, bool bytes) {
  min = samples == 0 ? value : std::min(min, value);
  max = samples == 0 ? value : std::max(max, value);
  ++samples;
  sum += value;
  sumsq += value * value;
  if (bytes) ++hist[value == 0 ? 0 : 63 - __builtin_clzll(value)];
}

TargetStats::TargetStats(std::string fsname, int mdts, int osts)
    : fsname_(std::move(fsname)), mdts_(mdts), osts_(osts) {
  const auto now = Clock::now();
  ost_targets_.resize(static_cast<size_t>(osts));
  mdt_targets_.resize(static_cast<size_t>(mdts));
  for (auto& t : ost_targets_) t = {now, std::vector<Counter>(std::size(kOstNames)), {}};
  for (auto& t : mdt_targets_) t = {now, std::vector<Counter>(std::size(kMdtNames)), {}};
}

// Names in print order, and which two counters count bytes.
struct StatsKind {
  const char* const* names;
  size_t count;
  size_t read_bytes;
  size_t write_bytes;
  bool Bytes(size_t op) const { return op == read_bytes || op == write_bytes; }
};

namespace {
constexpr StatsKind kOst{kOstNames, std::size(kOstNames), static_cast<size_t>(OstOp::kReadBytes),
                         static_cast<size_t>(OstOp::kWriteBytes)};
constexpr StatsKind kMdt{kMdtNames, std::size(kMdtNames), static_cast<size_t>(MdtOp::kReadBytes),
                         static_cast<size_t>(MdtOp::kWriteBytes)};
}  // namespace

void TargetStats::Add(Target& target, const StatsKind& kind, size_t op, const std::string& job,
                      uint64_t value) {
  const bool bytes = kind.Bytes(op);
  target.totals[op].Add(value, bytes);
  if (job.empty()) return;
  const auto now = Clock::now();
  auto [it, made] = target.jobs.try_emplace(job);
  if (made) {
    it->second.start = now;
    it->second.counters.resize(kind.count);
  }
  it->second.last = now;
  it->second.counters[op].Add(value, bytes);
}

void TargetStats::AddOst(int ost, const std::string& job, OstOp op, uint64_t value) {
  if (ost < 0 || ost >= osts_) return;
  std::lock_guard lock(mu_);
  Add(ost_targets_[static_cast<size_t>(ost)], kOst, static_cast<size_t>(op), job, value);
}

void TargetStats::AddMdt(int mdt, const std::string& job, MdtOp op, uint64_t value) {
  if (mdt < 0 || mdt >= mdts_) return;
  std::lock_guard lock(mu_);
  Add(mdt_targets_[static_cast<size_t>(mdt)], kMdt, static_cast<size_t>(op), job, value);
}

void TargetStats::Purge(Target& target, Clock::time_point now) {
  if (cleanup_seconds_ == 0) return;
  const auto idle = std::chrono::seconds(cleanup_seconds_);
  std::erase_if(target.jobs, [&](const auto& entry) { return now - entry.second.last > idle; });
}

std::string TargetStats::JobStatsText(Target& target, const StatsKind& kind) {
  Purge(target, Clock::now());
  std::string text = "job_stats:\n";
  char line[256];
  for (const auto& [id, job] : target.jobs) {
    text += "- job_id:          " + QuotedJobId(id) + "\n";
    text += "  snapshot_time:   " + Time(job.last.time_since_epoch()) + "\n";
    text += "  start_time:      " + Time(job.start.time_since_epoch()) + "\n";
    text += "  elapsed_time:    " + Time(job.last - job.start) + "\n";
    for (size_t op = 0; op < kind.count; ++op) {
      const Counter& c = job.counters[op];
      const std::string label = std::string(kind.names[op]) + ":";
      std::snprintf(line, sizeof(line),
                    "  %-17s{ samples: %11" PRIu64 ", unit: %5s, min: %8" PRIu64 ", max: %8" PRIu64
                    ", sum: %16" PRIu64 ", sumsq: %18" PRIu64,
                    label.c_str(), c.samples, kind.Bytes(op) ? "bytes" : "usecs", c.min, c.max,
                    c.sum, c.sumsq);
      text += line;
      if (!c.hist.empty()) {
        text += ", hist: { ";
        bool first = true;
        for (const auto& [log2, n] : c.hist) {
          text += (first ? "" : ", ") + BucketName(log2) + ": " + std::to_string(n);
          first = false;
        }
        text += " }";
      }
      text += " }\n";
    }
  }
  return text;
}

std::string TargetStats::StatsText(const Target& target, const StatsKind& kind) {
  const auto now = Clock::now();
  char line[256];
  std::string text;
  std::snprintf(line, sizeof(line), "%-25s %s\n%-25s %s\n%-25s %s\n", "snapshot_time",
                Time(now.time_since_epoch()).c_str(), "start_time",
                Time(target.start.time_since_epoch()).c_str(), "elapsed_time",
                Time(now - target.start).c_str());
  text += line;
  for (size_t op = 0; op < kind.count; ++op) {
    const Counter& c = target.totals[op];
    if (c.samples == 0) continue;  // lprocfs prints no counter without samples
    std::snprintf(line, sizeof(line),
                  "%-25s %" PRIu64 " samples [%s] %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                  "\n",
                  kind.names[op], c.samples, kind.Bytes(op) ? "bytes" : "usecs", c.min, c.max,
                  c.sum, c.sumsq);
    text += line;
  }
  return text;
}

std::string TargetStats::OstJobStats(int ost) {
  std::lock_guard lock(mu_);
  return JobStatsText(ost_targets_.at(static_cast<size_t>(ost)), kOst);
}

std::string TargetStats::MdtJobStats(int mdt) {
  std::lock_guard lock(mu_);
  return JobStatsText(mdt_targets_.at(static_cast<size_t>(mdt)), kMdt);
}

std::string TargetStats::OstStats(int ost) {
  std::lock_guard lock(mu_);
  return StatsText(ost_targets_.at(static_cast<size_t>(ost)), kOst);
}

std::string TargetStats::MdtStats(int mdt) {
  std::lock_guard lock(mu_);
  return StatsText(mdt_targets_.at(static_cast<size_t>(mdt)), kMdt);
}

void TargetStats::ClearJobs(Target& target, const std::string& job) {
  if (job == "clear") {
    target.jobs.clear();
  } else {
    target.jobs.erase(job);
  }
}

void TargetStats::ClearOstJobs(int ost, const std::string& job) {
  std::lock_guard lock(mu_);
  if (ost >= 0 && ost < osts_) ClearJobs(ost_targets_[static_cast<size_t>(ost)], job);
}

void TargetStats::ClearMdtJobs(int mdt, const std::string& job) {
  std::lock_guard lock(mu_);
  if (mdt >= 0 && mdt < mdts_) ClearJobs(mdt_targets_[static_cast<size_t>(mdt)], job);
}

void TargetStats::SetCleanupInterval(uint64_t seconds) {
  std::lock_guard lock(mu_);
  cleanup_seconds_ = seconds;
}

uint64_t TargetStats::CleanupInterval() {
  std::lock_guard lock(mu_);
  return cleanup_seconds_;
}

void TargetStats::SetOstDelay(int ost, std::chrono::microseconds delay) {
  if (ost >= 0 && ost < osts_)
    delay_us_[static_cast<size_t>(ost)].store(delay.count(), std::memory_order_relaxed);
}

std::chrono::microseconds TargetStats::OstDelay(int ost) const {
  if (ost < 0 || ost >= osts_) return std::chrono::microseconds(0);
  return std::chrono::microseconds(
      delay_us_[static_cast<size_t>(ost)].load(std::memory_order_relaxed));
}

}  // namespace fathom::lustre_sim
