// `fathom-lustre-sim status`: the emulated file systems this machine serves.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "lustre_sim/cli/commands.h"
#include "lustre_sim/cli/mount_table.h"
#include "lustre_sim/state/registry.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim::cli {

CommandRunner AddStatusCommand(CLI::App& app) {
  app.add_subcommand("status",
                     "List the emulated file systems in the registry ($FATHOM_LUSTRE_SIM_RUNDIR or "
                     "/run/fathom-lustre-sim): fsname, mode, MDTs, mount point, state, health.");
  return []() {
    auto entries = ListRegistryEntries();
    if (entries.empty()) {
      printf("no emulated file systems (registry %s)\n", RegistryDir().c_str());
      return kExitOk;
    }
    printf("%-8s %-4s %4s %-10s %s\n", "FSNAME", "MODE", "MDTS", "HEALTH", "MOUNT / STATE");
    for (const auto& e : entries) {
      std::string health = "ok";
      std::string mdts = "?";
      auto state = SimState::Open(e.state_dir);
      if (state.ok()) {
        mdts = std::to_string((*state)->config().mdts);
      } else {
        health = "no-state";
      }
      if (e.mode == "fuse") {
        auto mounted = MountAt(e.mount);
        struct stat st{};
        if (!mounted.has_value() || mounted->fstype != kSimFsType) {
          health = "stale";
        } else if (stat(e.mount.c_str(), &st) != 0 && errno == ENOTCONN) {
          health = "dead";
        }
      }
      printf("%-8s %-4s %4s %-10s %s %s\n", e.fsname.c_str(), e.mode.c_str(), mdts.c_str(), health.c_str(),
             e.mode == "fuse" ? e.mount.c_str() : "-", e.state_dir.c_str());
    }
    return kExitOk;
  };
}

}  // namespace fathom::lustre_sim::cli
