// caller_identity.h — who performs a FUSE request, as a Lustre client would record it.
//
// uid/gid come from the request; the jobid follows jobid_var exactly as Lustre's
// lustre_get_jobid does: "disable" gives no jobid, "procname_uid" gives "<comm>.<uid>"
// (jobid_name's default "%e.%u"), any other value names an environment variable read from
// /proc/PID/environ, falling back to "<comm>.<uid>" when the process does not have it.
// Jobids are cut to 31 bytes (LUSTRE_JOBID_SIZE - 1). Results are cached per pid for one
// second, as Lustre caches them per pid.
// Thread-safe (one internal mutex).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fathom::lustre_sim {

// The jobid of process `pid` (running as `uid`) under `jobid_var`, read from /proc.
std::string JobidOf(pid_t pid, uint32_t uid, std::string_view jobid_var);

class JobidCache {
 public:
  std::string Get(pid_t pid, uint32_t uid, const std::string& jobid_var);

 private:
  struct Cached {
    std::string jobid_var;
    uint32_t uid = 0;
    std::string jobid;
    std::chrono::steady_clock::time_point at;
  };
  std::mutex mu_;
  std::unordered_map<pid_t, Cached> cache_;  // guarded by mu_
};

}  // namespace fathom::lustre_sim
