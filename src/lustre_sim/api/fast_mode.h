// fast_mode.h — set up and tear down an emulated file system in fast mode (no FUSE).
//
// In fast mode nothing is mounted: the liblustreapi-compatible library generates each MDT's
// changelog on the fly from (MDT, index), at memory speed, so changelog readers can be
// benchmarked. Users, masks and clear positions live in the state directory exactly as in
// FUSE mode (SimState), so `lctl changelog_register`/`lfs changelog_clear` work and a reader
// restarted at last+1 continues exactly. See fast_log.h for the generated namespace.
//
// SetupFastMode creates (or reopens, keeping its users and its time base) the state in
// `state_dir` and writes the registry entry {fsname, mode "fast", mount, state_dir, rate}; fsname and the
// MDT count must match an existing state. A paced log (rate > 0) set up on a fresh state starts
// now: record i is due i / rate seconds after setup (fast_log.h). TeardownFastMode removes the registry entry and
// keeps the state. Both are plain functions, safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::lustre_sim {

struct FastModeConfig {
  std::string fsname;      // 1-8 characters [A-Za-z0-9_]
  int mdts = 1;            // 1-16
  std::string state_dir;   // created if missing; made absolute
  uint64_t records = 0;    // records per MDT; 0: unlimited
  uint64_t rate = 0;       // records per second per MDT (at most kMaxFastRate); 0: unlimited
  uint64_t epoch_ns = 0;   // a new log's time base (CLOCK_REALTIME ns; paced record i is due
                           // at epoch_ns + i/rate); 0: now
  std::string mount{};     // a path that stands for the client mount ("": none; need not exist):
                           // llapi_search_fsname names the file system for paths under it and
                           // llapi_path2fid gives it the root FID, as for a real client mount
};

inline constexpr uint64_t kMaxFastRate = 1000000000;

Status SetupFastMode(const FastModeConfig& config);
Status TeardownFastMode(std::string_view fsname);

}  // namespace fathom::lustre_sim
