#include "lustre_sim/tools/tool_target.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

namespace fathom::lustre_sim::tools {

int ErrnoOr(const Status& status, int fallback) {
  std::error_code code = status.code();
  if (code && code.value() > 0 &&
      (code.category() == std::generic_category() || code.category() == std::system_category())) {
    return code.value();
  }
  return fallback;
}

Result<Target> OpenTarget(std::string_view name) {
  Target target;
  int mdt = -1;
  auto entry = FindRegistryEntry(name, &mdt);
  if (!entry.ok()) return Status::Error(entry.status().message(), std::make_error_code(std::errc::no_such_device));
  target.entry = *entry;
  target.mdt = mdt;
  auto state = SimState::Open(entry->state_dir);
  if (!state.ok()) return Status::Error(state.status().message(), std::make_error_code(std::errc::no_such_device));
  target.state = std::move(state).value();
  if (mdt >= target.state->config().mdts) {
    return Status::Error("no such MDT: " + std::string(name), std::make_error_code(std::errc::no_such_device));
  }
  return target;
}

Result<PathInFs> OpenPath(const std::string& path) {
  std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
  std::string leaf = p.filename().string();
  std::filesystem::path parent = p.parent_path();
  if (leaf.empty()) {  // "/mnt/fs/" normalizes to a trailing separator
    p = p.parent_path();
    leaf = p.filename().string();
    parent = p.parent_path();
  }
  char resolved[PATH_MAX];
  if (realpath(parent.c_str(), resolved) == nullptr) {
    return Status::FromErrno(errno, "cannot resolve " + parent.string());
  }
  std::string full = std::string(resolved);
  if (leaf != "" && leaf != "/") full += (full == "/" ? "" : "/") + leaf;
  for (const auto& entry : ListRegistryEntries()) {
    if (entry.mode != "fuse" || entry.mount.empty()) continue;
    std::string rel;
    if (full == entry.mount) {
      rel = "/";
    } else if (full.starts_with(entry.mount + "/")) {
      rel = full.substr(entry.mount.size());
    } else {
      continue;
    }
    auto target = OpenTarget(entry.fsname);
    if (!target.ok()) return target.status();
    return PathInFs{std::move(target).value(), rel};
  }
  return Status::Error(path + " is not inside a fathom-lustre-sim mount",
                       std::make_error_code(std::errc::no_such_device));
}

}  // namespace fathom::lustre_sim::tools
