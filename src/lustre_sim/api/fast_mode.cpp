#include "lustre_sim/api/fast_mode.h"

#include <cerrno>
#include <ctime>
#include <filesystem>

#include "lustre_sim/state/registry.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {

Status SetupFastMode(const FastModeConfig& config) {
  if (config.state_dir.empty()) {
    return ErrnoStatus(EINVAL, "fast mode needs a state directory (--state DIR)");
  }
  std::error_code ec;
  std::string state_dir = std::filesystem::absolute(config.state_dir, ec).lexically_normal().string();
  if (ec) return ErrnoStatus(EINVAL, "invalid state directory '" + config.state_dir + "': " + ec.message());
  while (state_dir.size() > 1 && state_dir.back() == '/') state_dir.pop_back();

  if (config.rate > kMaxFastRate) {
    return ErrnoStatus(EINVAL, "rate " + std::to_string(config.rate) + " records/s is above the limit of " +
                                   std::to_string(kMaxFastRate) + " (use 0 for unlimited)");
  }
  auto existing = FindRegistryEntry(config.fsname);
  if (existing.ok() && existing->mode != "fast") {
    return ErrnoStatus(EBUSY, "file system '" + config.fsname + "' is already mounted at " + existing->mount +
                                  ": unmount it before starting it in fast mode");
  }

  SimConfig sim;
  sim.fsname = config.fsname;
  sim.mdts = config.mdts;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<SimState> state, SimState::CreateOrOpen(state_dir, sim));
  FATHOM_ASSIGN_OR_RETURN(std::optional<GeneratedLog> previous, state->GetGeneratedLog());
  GeneratedLog log;
  log.records = config.records;
  if (previous) {
    log.epoch_ns = previous->epoch_ns;  // the same time base: a restarted reader sees the same records
  } else {
    for (int mdt = 0; mdt < config.mdts; ++mdt) {
      FATHOM_ASSIGN_OR_RETURN(uint64_t last, state->LastIndex(mdt));
      if (last != 0) {
        return ErrnoStatus(EINVAL, "state directory " + state_dir +
                                       " holds a mounted (FUSE mode) file system with stored changelogs: "
                                       "use another --state directory for fast mode");
      }
    }
    struct timespec now {};
    clock_gettime(CLOCK_REALTIME, &now);
    log.epoch_ns = config.epoch_ns != 0
                       ? config.epoch_ns
                       : static_cast<uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<uint64_t>(now.tv_nsec);
  }
  FATHOM_RETURN_IF_ERROR(state->SetGeneratedLog(log));

  RegistryEntry entry;
  entry.fsname = config.fsname;
  entry.mode = "fast";
  if (!config.mount.empty()) {
    std::error_code ec;
    // As readers name it: symlinks in the part that exists resolved (fathom canonicalizes --mount).
    entry.mount = std::filesystem::weakly_canonical(std::filesystem::absolute(config.mount, ec), ec).string();
    while (entry.mount.size() > 1 && entry.mount.back() == '/') entry.mount.pop_back();
  }
  entry.state_dir = state_dir;
  entry.rate = config.rate;
  return WriteRegistryEntry(entry);
}

Status TeardownFastMode(std::string_view fsname) {
  FATHOM_ASSIGN_OR_RETURN(RegistryEntry entry, FindRegistryEntry(fsname));
  if (entry.mode != "fast") {
    return ErrnoStatus(EINVAL, "file system '" + std::string(fsname) + "' is not in fast mode (it is mounted at " +
                                   entry.mount + "): unmount it with `fathom-lustre-sim umount`");
  }
  return RemoveRegistryEntry(fsname);
}

}  // namespace fathom::lustre_sim
