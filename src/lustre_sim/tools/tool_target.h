// tool_target.h — how the lfs and lctl shims find the emulated file system they act on.
//
// A device ("testfs-MDT0001"), an fsname ("testfs") or a path inside a mount, looked up in
// the registry (registry.h), with the state opened. Paths are turned into the file
// system's own form ("/" or "/a/b") without following the last component. Plain functions.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "fathom/status.h"
#include "lustre_sim/state/registry.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim::tools {

struct Target {
  RegistryEntry entry;
  std::unique_ptr<SimState> state;
  int mdt = -1;  // set when named by device
};

// By device, fsname or path. Errors carry ENOENT/ENODEV codes.
Result<Target> OpenTarget(std::string_view name);

struct PathInFs {
  Target target;
  std::string relative;  // "/" or "/a/b"
};

// `path` (relative to the cwd or absolute) inside a fathom-lustre-sim mount.
Result<PathInFs> OpenPath(const std::string& path);

// lfs/lctl exit with the errno of a failed call (main returns -rc).
int ErrnoOr(const Status& status, int fallback);

}  // namespace fathom::lustre_sim::tools
