// target_stats.h — what the emulated servers count: per OST and per MDT, the counters Lustre
// keeps per job (obdfilter.*.job_stats, mdt.*.job_stats) and in total (obdfilter.*.stats,
// mdt.*.md_stats), fed by the file system's own operations, and the delay injected on an OST
// to make it slow.
//
// The emulator has no RPCs: one FUSE request is one "RPC" per OST it touches (a read or a
// write is split at stripe boundaries and each piece is counted on its stripe's OST, bytes
// in read_bytes/write_bytes, the request's time in usecs in read/write). A request from a
// process without a job id (jobid_var=disable) counts in the totals only, as a server counts
// no job for an RPC that carries none. Idle jobs are purged after job_cleanup_interval
// (default 600 s), as Lustre does.
//
// The text is that of Lustre 2.16 (valid YAML job_stats with start and elapsed times, hist of
// the byte counters; lprocfs stats with a %-25s name column), so that fathom's readers see
// what a current server prints.
//
// Thread-safe: one internal mutex (FUSE handlers on several threads; the control attribute).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fathom::lustre_sim {

// OST counters, in the order a 2.16 OSS prints them.
enum class OstOp : uint8_t {
  kReadBytes,
  kWriteBytes,
  kRead,
  kWrite,
  kGetattr,
  kSetattr,
  kPunch,
  kSync,
  kDestroy,
  kCreate,
  kStatfs,
  kGetInfo,
  kSetInfo,
  kQuotactl,
  kPrealloc,
  kCount
};
// MDT counters, in the order a 2.16 MDS prints them.
enum class MdtOp : uint8_t {
  kOpen,
  kClose,
  kMknod,
  kLink,
  kUnlink,
  kMkdir,
  kRmdir,
  kRename,
  kGetattr,
  kSetattr,
  kGetxattr,
  kSetxattr,
  kStatfs,
  kSync,
  kSamedirRename,
  kParallelRenameFile,
  kParallelRenameDir,
  kCrossdirRename,
  kReadBytes,
  kWriteBytes,
  kRead,
  kWrite,
  kPunch,
  kMigrate,
  kFallocate,
  kReadpage,
  kCount
};

inline constexpr size_t kMaxOsts = 64;

// The counters of one kind of target (OST or MDT), defined in target_stats.cpp.
struct StatsKind;

class TargetStats {
 public:
  using Clock = std::chrono::system_clock;

  TargetStats(std::string fsname, int mdts, int osts);

  // One sample of `value` (bytes for the *_bytes counters, else usecs) for `job` ("" for
  // none) on OST `ost` / MDT `mdt`. Out-of-range targets are ignored.
  void AddOst(int ost, const std::string& job, OstOp op, uint64_t value);
  void AddMdt(int mdt, const std::string& job, MdtOp op, uint64_t value);

  // `lctl get_param` texts. Names: "obdfilter.FS-OST0001.job_stats", "obdfilter.FS-OST0001.stats",
  // "mdt.FS-MDT0000.job_stats", "mdt.FS-MDT0000.md_stats".
  std::string OstJobStats(int ost);
  std::string MdtJobStats(int mdt);
  std::string OstStats(int ost);
  std::string MdtStats(int mdt);

  // `lctl set_param ...job_stats=clear` (every job) or `=JOB` (that job).
  void ClearOstJobs(int ost, const std::string& job);
  void ClearMdtJobs(int mdt, const std::string& job);
  // job_cleanup_interval in seconds (0: never purge), for every target.
  void SetCleanupInterval(uint64_t seconds);
  uint64_t CleanupInterval();

  // The delay added to every request that touches OST `ost` (0: none).
  void SetOstDelay(int ost, std::chrono::microseconds delay);
  std::chrono::microseconds OstDelay(int ost) const;

  const std::string& fsname() const { return fsname_; }
  int mdts() const { return mdts_; }
  int osts() const { return osts_; }

 private:
  struct Counter {
    uint64_t samples = 0;
    uint64_t min = 0;
    uint64_t max = 0;
    uint64_t sum = 0;
    uint64_t sumsq = 0;
    std::map<int, uint64_t> hist;  // log2 bucket -> samples (byte counters only)
    void Add(uint64_t value, bool bytes);
  };
  struct Job {
    Clock::time_point start;
    Clock::time_point last;
    std::vector<Counter> counters;
  };
  struct Target {
    Clock::time_point start;
    std::vector<Counter> totals;
    std::map<std::string, Job> jobs;
  };

  void Add(Target& target, const StatsKind& kind, size_t op, const std::string& job,
           uint64_t value);
  void Purge(Target& target, Clock::time_point now);
  std::string JobStatsText(Target& target, const StatsKind& kind);
  static std::string StatsText(const Target& target, const StatsKind& kind);
  static void ClearJobs(Target& target, const std::string& job);

  const std::string fsname_;
  const int mdts_;
  const int osts_;
  std::mutex mu_;
  std::vector<Target> ost_targets_;  // guarded by mu_
  std::vector<Target> mdt_targets_;  // guarded by mu_
  uint64_t cleanup_seconds_ = 600;   // guarded by mu_
  std::array<std::atomic<int64_t>, kMaxOsts> delay_us_{};
};

}  // namespace fathom::lustre_sim
