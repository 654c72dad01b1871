// control_xattr.h — requests that lfs/lctl send to a mounted fathom-lustre-sim through
// extended attributes, and how they are encoded.
//
// Lustre's own tools talk to the client through ioctls; the emulator's shims talk to the
// FUSE daemon by setting a virtual extended attribute on a directory of the mount. The
// daemon acts on it with the caller's credentials and answers with the errno of the
// setxattr call; nothing is stored in the backing directory.
//   kMkdirXattr on a directory, value "MDT MODE NAME" (decimal MDT, octal mode): creates
//     NAME in that directory on MDT `MDT` (`lfs mkdir -i`).
//   kSetstripeXattr on a directory, value "COUNT SIZE OFFSET POOL NAME" (decimal; POOL "-"
//     for none): creates the regular file NAME there with that layout (`lfs setstripe` on
//     a path that does not exist), logging CREAT then LYOUT.
//   kReloadXattr on the mount root, any value: re-reads settings that lctl changed in the
//     state (jobid_var), so they apply from the next operation on.
//   kStatsXattr on the mount root, the servers' statistics (target_stats.h):
//     "dump": writes every target's texts into STATE/stats/ (one file per parameter, named
//       as lctl names it: obdfilter.FS-OST0001.job_stats) before answering;
//     "clear ost|mdt INDEX JOB": clears that job's job_stats ("clear" for every job);
//     "delay INDEX USECS": the delay of OST INDEX;
//     "cleanup SECONDS": job_cleanup_interval of every target.
// Value types and pure functions; any thread.
#pragma once

#include <string>
#include <string_view>

#include "fathom/status.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {

inline constexpr const char* kMkdirXattr = "lustre.fathom.mkdir";
inline constexpr const char* kReloadXattr = "lustre.fathom.reload";
inline constexpr const char* kSetstripeXattr = "lustre.fathom.setstripe";
inline constexpr const char* kStatsXattr = "lustre.fathom.stats";
// Where "dump" writes the statistics, under the state directory.
inline constexpr const char* kStatsDir = "stats";

struct MkdirRequest {
  int mdt = 0;
  unsigned mode = 0755;
  std::string name;
};

std::string EncodeMkdirRequest(const MkdirRequest& request);
// Rejects a malformed value (bad numbers, empty name, '/' in the name).
Result<MkdirRequest> DecodeMkdirRequest(std::string_view value);

struct SetstripeRequest {
  LayoutSpec layout;
  std::string name;
};

std::string EncodeSetstripeRequest(const SetstripeRequest& request);
Result<SetstripeRequest> DecodeSetstripeRequest(std::string_view value);

struct StatsRequest {
  enum class Kind { kDump, kClear, kDelay, kCleanup };
  Kind kind = Kind::kDump;
  bool ost = true;     // kClear: an OST, else an MDT
  int index = 0;       // kClear, kDelay: the target
  std::string job;     // kClear: the job, or "clear" for all
  uint64_t value = 0;  // kDelay: usecs; kCleanup: seconds
};

std::string EncodeStatsRequest(const StatsRequest& request);
Result<StatsRequest> DecodeStatsRequest(std::string_view value);

}  // namespace fathom::lustre_sim
