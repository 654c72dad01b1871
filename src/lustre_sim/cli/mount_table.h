// mount_table.h — what is mounted where, from /proc/self/mountinfo.
//
// Used to refuse mounting over a busy mount point and to tell a live emulator mount from a
// stale registry entry. Plain functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fathom::lustre_sim {

struct MountInfo {
  std::string mountpoint;  // unescaped
  std::string fstype;      // e.g. "fuse.fathom-lustre-sim"
  std::string source;      // e.g. "lustre-sim:/testfs"
};

std::vector<MountInfo> ReadMountTable();
// The mount whose mount point is exactly `path` (absolute, no trailing slash), if any.
std::optional<MountInfo> MountAt(const std::string& path);

inline constexpr const char* kSimFsType = "fuse.fathom-lustre-sim";

}  // namespace fathom::lustre_sim
