// lctl get_param / set_param for mdd.*.changelog_users, mdd.*.changelog_mask, jobid_var, and
// the servers' statistics (lctl_server_params.h).
#include <fnmatch.h>
#include <getopt.h>
#include <sys/xattr.h>

#include <algorithm>
#include <optional>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lustre/changelog_record.h"
#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/tools/lctl_commands.h"
#include "lustre_sim/tools/lctl_server_params.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {
namespace {

struct Param {
  std::string name;    // "mdd.testfs-MDT0000.changelog_users" or "jobid_var"
  std::string fsname;
  int mdt = -1;        // -1: a client parameter
  std::string leaf;    // "changelog_users", "changelog_mask", "jobid_var"
  std::optional<ServerParam> server;  // a server's parameter (then the rest is unused)
};

std::vector<Param> AllParams() {
  std::vector<Param> out;
  auto entries = ListRegistryEntries();
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.fsname < b.fsname; });
  bool have_client = false;
  for (const auto& e : entries) {
    auto state = SimState::Open(e.state_dir);
    if (!state.ok()) continue;
    int mdts = (*state)->config().mdts;
    for (int i = 0; i < mdts; ++i) {
      for (const char* leaf : {"changelog_mask", "changelog_users"}) {
        out.push_back({"mdd." + MdtName(e.fsname, i) + "." + leaf, e.fsname, i, leaf, std::nullopt});
      }
    }
    if (!have_client) {
      out.push_back({"jobid_var", e.fsname, -1, "jobid_var", std::nullopt});
      have_client = true;
    }
  }
  for (auto& server : ServerParams()) {
    Param p{server.name, server.entry.fsname, -1, server.leaf, std::nullopt};
    p.server = std::move(server);
    out.push_back(std::move(p));
  }
  return out;
}

// Lustre matches parameter names as paths ('.' -> '/') with glob(3).
std::vector<Param> Matching(const std::string& pattern) {
  std::string glob = pattern;
  std::replace(glob.begin(), glob.end(), '.', '/');
  std::vector<Param> out;
  for (auto& p : AllParams()) {
    std::string path = p.name;
    std::replace(path.begin(), path.end(), '.', '/');
    if (fnmatch(glob.c_str(), path.c_str(), FNM_PATHNAME) == 0) out.push_back(p);
  }
  return out;
}

std::string CleanPath(const std::string& pattern) {
  std::string path = pattern;
  std::replace(path.begin(), path.end(), '.', '/');
  return path;
}

Result<std::string> ReadValue(const Param& p) {
  if (p.server) return ReadServerParam(*p.server);
  auto target = OpenTarget(p.fsname);
  if (!target.ok()) return target.status();
  SimState& state = *target->state;
  if (p.leaf == "jobid_var") return state.config().jobid_var;
  if (p.leaf == "changelog_mask") {
    FATHOM_ASSIGN_OR_RETURN(uint64_t mask, state.Mask(p.mdt));
    std::string text = lustre::FormatMask(mask);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + " ";  // mdd_changelog_mask_seq_show prints "NAME " per type
  }
  FATHOM_ASSIGN_OR_RETURN(uint64_t current, state.LastIndex(p.mdt));
  FATHOM_ASSIGN_OR_RETURN(auto users, state.Users(p.mdt));
  char line[512];
  std::string text = "current_index: " + std::to_string(current) + "\n";
  snprintf(line, sizeof(line), "%-24s %10s %s %s\n", "ID", "index", "(idle)", "mask");
  text += line;
  for (const auto& u : users) {
    snprintf(line, sizeof(line), "%-24s %10llu (%u)", u.name.c_str(), static_cast<unsigned long long>(u.cleared), 0u);
    text += line;
    if (u.mask != 0) {
      text += " mask=";
      std::string names = lustre::FormatMask(u.mask);
      while (!names.empty() && names.back() == ' ') names.pop_back();
      std::replace(names.begin(), names.end(), ' ', ',');
      text += names;
    }
    text += "\n";
  }
  text.pop_back();  // lctl strips the last newline
  return text;
}

// Asks every mounted emulator of `fsname` to re-read its settings.
void NotifyMounts(const std::string& fsname) {
  for (const auto& e : ListRegistryEntries()) {
    if (e.fsname != fsname || e.mode != "fuse" || e.mount.empty()) continue;
    (void)setxattr(e.mount.c_str(), kReloadXattr, "1", 1, 0);
  }
}

Status WriteValue(const Param& p, const std::string& value) {
  if (p.server) return WriteServerParam(*p.server, value);
  auto target = OpenTarget(p.fsname);
  if (!target.ok()) return target.status();
  SimState& state = *target->state;
  if (p.leaf == "jobid_var") {
    if (value.empty() || value.size() > 16) {
      return Status::Error("bad jobid_var", std::make_error_code(std::errc::invalid_argument));
    }
    for (const auto& e : ListRegistryEntries()) {
      auto other = SimState::Open(e.state_dir);
      if (!other.ok()) continue;
      FATHOM_RETURN_IF_ERROR((*other)->SetJobidVar(value));
      NotifyMounts(e.fsname);
    }
    return Status::Ok();
  }
  if (p.leaf == "changelog_mask") {
    FATHOM_ASSIGN_OR_RETURN(uint64_t mask, state.Mask(p.mdt));
    auto updated = lustre::ApplyMaskExpression(mask, value);
    if (!updated.ok()) return Status::Error("bad mask", std::make_error_code(std::errc::invalid_argument));
    return state.SetMask(p.mdt, *updated);
  }
  return Status::Error("read-only parameter", std::make_error_code(std::errc::permission_denied));
}

}  // namespace

int LctlGetParam(int argc, char** argv) {
  static const option kLong[] = {{"no-name", no_argument, nullptr, 'n'}, {nullptr, 0, nullptr, 0}};
  bool show_name = true;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "n", kLong, nullptr)) != -1) {
    if (c != 'n') return kCmdHelp;
    show_name = false;
  }
  if (optind >= argc) return kCmdHelp;
  int rc = 0;
  for (int i = optind; i < argc; ++i) {
    auto params = Matching(argv[i]);
    if (params.empty()) {
      fprintf(stderr, "error: get_param: param_path '%s': %s\n", CleanPath(argv[i]).c_str(), strerror(ENOENT));
      if (rc == 0) rc = -ENOENT;
      continue;
    }
    for (const auto& p : params) {
      auto value = ReadValue(p);
      if (!value.ok()) {
        int err = ErrnoOr(value.status(), EIO);
        fprintf(stderr, "error: get_param: read_param '%s': %s\n", p.name.c_str(), strerror(err));
        if (rc == 0) rc = -err;
        continue;
      }
      if (show_name) {
        printf("%s=%s%s\n", p.name.c_str(), value->find('\n') != std::string::npos ? "\n" : "", value->c_str());
      } else {
        printf("%s\n", value->c_str());
      }
    }
  }
  return rc;
}

int LctlSetParam(int argc, char** argv) {
  static const option kLong[] = {{"no-name", no_argument, nullptr, 'n'}, {nullptr, 0, nullptr, 0}};
  bool show_name = true;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "nP", kLong, nullptr)) != -1) {
    if (c == 'n') {
      show_name = false;
    } else if (c != 'P') {
      return kCmdHelp;
    }
  }
  if (optind >= argc) return kCmdHelp;
  int rc = 0;
  for (int i = optind; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      fprintf(stderr, "error: set_param: setting %s: %s\n", arg.c_str(), strerror(EINVAL));
      if (rc == 0) rc = -EINVAL;
      continue;
    }
    std::string pattern = arg.substr(0, eq);
    std::string value = arg.substr(eq + 1);
    auto params = Matching(pattern);
    int err = 0;
    if (params.empty()) {
      err = ENOENT;
      fprintf(stderr, "error: set_param: param_path '%s': %s\n", CleanPath(pattern).c_str(), strerror(err));
    }
    for (const auto& p : params) {
      Status st = WriteValue(p, value);
      if (!st.ok()) {
        err = ErrnoOr(st, EIO);
        std::string path = p.server     ? "/proc/fs/lustre/" + CleanPath(p.name)
                           : p.mdt >= 0 ? "/sys/kernel/debug/lustre/" + CleanPath(p.name)
                                        : "/sys/fs/lustre/" + p.name;
        fprintf(stderr, "error: set_param: setting %s=%s: %s\n", path.c_str(), value.c_str(), strerror(err));
        continue;
      }
      if (show_name) printf("%s=%s\n", p.name.c_str(), value.c_str());
    }
    if (err != 0) {
      fprintf(stderr, "error: set_param: setting '%s'='%s': %s\n", CleanPath(pattern).c_str(), value.c_str(),
              strerror(err));
      if (rc == 0) rc = -err;
    }
  }
  return rc;
}

}  // namespace fathom::lustre_sim::tools
