// lctl_server_params.h — the emulated servers' parameters that lctl reads and sets through a
// mounted file system's statistics control attribute (control_xattr.h, target_stats.h):
//   obdfilter.FS-OSTxxxx.job_stats   per-job OST counters; set: "clear" or a job id
//   obdfilter.FS-OSTxxxx.stats       the OST's totals (lprocfs stats)
//   obdfilter.FS-OSTxxxx.sim_delay_ms the emulator's injected delay on that OST (not Lustre's)
//   mdt.FS-MDTxxxx.job_stats         per-job MDT counters; set: "clear" or a job id
//   mdt.FS-MDTxxxx.md_stats          the MDT's totals
//   {obdfilter,mdt}.*.job_cleanup_interval  seconds an idle job is kept (every target)
// Only file systems mounted in FUSE mode have them. Plain functions.
#pragma once

#include <string>
#include <vector>

#include "fathom/status.h"
#include "lustre_sim/state/registry.h"

namespace fathom::lustre_sim::tools {

struct ServerParam {
  std::string name;  // "obdfilter.testfs-OST0001.job_stats"
  RegistryEntry entry;
  bool ost = true;  // else an MDT
  int index = 0;
  std::string leaf;  // "job_stats", "stats", "md_stats", "sim_delay_ms", "job_cleanup_interval"
};

// Every server parameter of the mounted file systems, in lctl's order.
std::vector<ServerParam> ServerParams();
Result<std::string> ReadServerParam(const ServerParam& param);
Status WriteServerParam(const ServerParam& param, const std::string& value);

}  // namespace fathom::lustre_sim::tools
