#include "lustre_sim/tools/lctl_server_params.h"

#include <sys/xattr.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim::tools {
namespace {

Status Errno(const std::string& what, int err) {
  return Status::Error(what, std::error_code(err, std::generic_category()));
}

Status Send(const ServerParam& p, const StatsRequest& request) {
  const std::string value = EncodeStatsRequest(request);
  if (setxattr(p.entry.mount.c_str(), kStatsXattr, value.data(), value.size(), 0) != 0) {
    return Errno(p.entry.mount + ": " + value, errno);
  }
  return Status::Ok();
}

bool Number(const std::string& text, uint64_t& out) {
  auto r = std::from_chars(text.data(), text.data() + text.size(), out, 10);
  return !text.empty() && r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace

std::vector<ServerParam> ServerParams() {
  std::vector<ServerParam> out;
  auto entries = ListRegistryEntries();
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.fsname < b.fsname; });
  for (const auto& e : entries) {
    if (e.mode != "fuse" || e.mount.empty()) continue;
    auto state = SimState::Open(e.state_dir);
    if (!state.ok()) continue;
    const SimConfig config = (*state)->config();
    for (int i = 0; i < config.mdts; ++i) {
      for (const char* leaf : {"job_cleanup_interval", "job_stats", "md_stats"}) {
        out.push_back({"mdt." + MdtName(e.fsname, i) + "." + leaf, e, false, i, leaf});
      }
    }
    for (int i = 0; i < config.osts; ++i) {
      for (const char* leaf : {"job_cleanup_interval", "job_stats", "sim_delay_ms", "stats"}) {
        out.push_back({"obdfilter." + OstName(e.fsname, i) + "." + leaf, e, true, i, leaf});
      }
    }
  }
  return out;
}

Result<std::string> ReadServerParam(const ServerParam& p) {
  FATHOM_RETURN_IF_ERROR(Send(p, StatsRequest{}));
  const std::string path = p.entry.state_dir + "/" + kStatsDir + "/" + p.name;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno(path, ENOENT);
  std::ostringstream text;
  text << in.rdbuf();
  std::string value = text.str();
  if (!value.empty() && value.back() == '\n') value.pop_back();  // lctl strips the last newline
  return value;
}

Status WriteServerParam(const ServerParam& p, const std::string& value) {
  StatsRequest request;
  uint64_t n = 0;
  if (p.leaf == "job_stats") {
    if (value.empty()) return Errno("empty job id", EINVAL);
    request.kind = StatsRequest::Kind::kClear;
    request.ost = p.ost;
    request.index = p.index;
    request.job = value;
  } else if (p.leaf == "sim_delay_ms" && Number(value, n)) {
    request.kind = StatsRequest::Kind::kDelay;
    request.index = p.index;
    request.value = n * 1000;
  } else if (p.leaf == "job_cleanup_interval" && Number(value, n)) {
    request.kind = StatsRequest::Kind::kCleanup;
    request.value = n;
  } else if (p.leaf == "sim_delay_ms" || p.leaf == "job_cleanup_interval") {
    return Errno("not a number: " + value, EINVAL);
  } else {
    return Errno("read-only parameter", EPERM);
  }
  return Send(p, request);
}

}  // namespace fathom::lustre_sim::tools
