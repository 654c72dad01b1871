#include "lustre_sim/fuse/caller_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "core/unique_fd.h"
#include "lustre/lustre_abi.h"

namespace fathom::lustre_sim {
namespace {

std::string ReadProcFile(pid_t pid, const char* what) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + what;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {};
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (1u << 20)) break;
  }
  return out;
}

std::string ProcnameUid(pid_t pid, uint32_t uid) {
  std::string comm = ReadProcFile(pid, "comm");
  while (!comm.empty() && comm.back() == '\n') comm.pop_back();
  return comm + "." + std::to_string(uid);
}

std::string Cut(std::string jobid) {
  if (jobid.size() > LUSTRE_JOBID_SIZE - 1) jobid.resize(LUSTRE_JOBID_SIZE - 1);
  return jobid;
}

}  // namespace

std::string JobidOf(pid_t pid, uint32_t uid, std::string_view jobid_var) {
  if (jobid_var == "disable" || pid <= 0) return {};
  if (jobid_var == "procname_uid") return Cut(ProcnameUid(pid, uid));
  std::string environ = ReadProcFile(pid, "environ");
  std::string key = std::string(jobid_var) + "=";
  size_t pos = 0;
  while (pos < environ.size()) {
    size_t end = environ.find('\0', pos);
    if (end == std::string::npos) end = environ.size();
    std::string_view entry(environ.data() + pos, end - pos);
    if (entry.starts_with(key)) return Cut(std::string(entry.substr(key.size())));
    pos = end + 1;
  }
  return Cut(ProcnameUid(pid, uid));
}

std::string JobidCache::Get(pid_t pid, uint32_t uid, const std::string& jobid_var) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(pid);
    if (it != cache_.end() && it->second.jobid_var == jobid_var && it->second.uid == uid &&
        now - it->second.at < std::chrono::seconds(1)) {
      return it->second.jobid;
    }
  }
  std::string jobid = JobidOf(pid, uid, jobid_var);
  std::lock_guard lock(mu_);
  if (cache_.size() > 4096) cache_.clear();
  cache_[pid] = Cached{jobid_var, uid, jobid, now};
  return jobid;
}

}  // namespace fathom::lustre_sim
