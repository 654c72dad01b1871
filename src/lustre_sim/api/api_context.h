// api_context.h — the process-wide view the liblustreapi-compatible library keeps of the
// emulated file systems it has touched.
//
// LookupFileSystem turns a device argument (fsname, FSNAME-MDTxxxx or a path under a
// mount) into the registry entry, a shared SimState for that state directory and, in fast
// mode, the FastLog (paced at the registry entry's rate) plus the per-MDT frontier: the
// highest record index any reader in this process has received, which is "now" for
// fast-mode fid2path. Registry lookups are cached
// per device and revalidated with a stat of the entry file. Everything here is thread-safe;
// the shared objects live until the library is unloaded.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fathom/status.h"
#include "lustre_sim/api/fast_log.h"
#include "lustre_sim/state/registry.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {

struct FastFrontier {
  struct alignas(64) Slot {
    std::atomic<uint64_t> applied{0};
  };
  std::array<Slot, 16> mdts;

  void Advance(int mdt, uint64_t index) {
    std::atomic<uint64_t>& slot = mdts[static_cast<size_t>(mdt)].applied;
    uint64_t seen = slot.load(std::memory_order_relaxed);
    while (seen < index && !slot.compare_exchange_weak(seen, index, std::memory_order_relaxed)) {
    }
  }
  uint64_t Applied(int mdt) const { return mdts[static_cast<size_t>(mdt)].applied.load(std::memory_order_relaxed); }
};

struct FileSystemHandle {
  RegistryEntry entry;
  int mdt = 0;                               // from an MDT device name; 0 otherwise
  SimState* state = nullptr;                 // shared; thread-safe
  std::shared_ptr<const FastLog> fast;       // set in fast mode
  FastFrontier* frontier = nullptr;          // set in fast mode
};

// Errors carry an errno (ENODEV when no such file system is registered).
Result<FileSystemHandle> LookupFileSystem(std::string_view device);

}  // namespace fathom::lustre_sim
