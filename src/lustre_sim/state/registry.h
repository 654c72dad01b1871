// registry.h — how lfs, lctl and the liblustreapi-compatible library find a running
// emulated file system.
//
// `fathom-lustre-sim mount` (or `fast`) writes one small JSON file per file system into the
// registry directory: $FATHOM_LUSTRE_SIM_RUNDIR if set, else /run/fathom-lustre-sim. It
// names the fsname, mode ("fuse" or "fast"), mount point and state directory (and, in fast
// mode, the pacing rate of the generated changelogs); unmount
// removes it. Lookups accept what Lustre tools accept: an fsname ("testfs"), an MDT device
// name ("testfs-MDT0001"), or any path inside a mount point.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::lustre_sim {

struct RegistryEntry {
  std::string fsname;
  std::string mode = "fuse";   // "fuse" | "fast"
  std::string mount;           // absolute mount point (fast mode: the directory standing for
                               // one, or "")
  std::string state_dir;       // absolute
  uint64_t rate = 0;           // fast mode: records per second per MDT (0: unlimited)
};

std::string RegistryDir();
Status WriteRegistryEntry(const RegistryEntry& entry);
Status RemoveRegistryEntry(std::string_view fsname);
std::vector<RegistryEntry> ListRegistryEntries();
// By fsname, by "FSNAME-MDTxxxx" (then `*mdt` is set), or by a path under a mount.
Result<RegistryEntry> FindRegistryEntry(std::string_view name_or_path, int* mdt = nullptr);

// "testfs-MDT0003" -> {"testfs", 3}; errors name the bad device.
Result<std::pair<std::string, int>> ParseMdtName(std::string_view device);
std::string MdtName(std::string_view fsname, int mdt);   // "testfs-MDT0003"
std::string OstName(std::string_view fsname, int ost);   // "testfs-OST0001"

}  // namespace fathom::lustre_sim
