#include "lustre_sim/api/api_context.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <string>

namespace fathom::lustre_sim {
namespace {

struct SharedFs {
  std::unique_ptr<SimState> state;
  FastFrontier frontier;
  std::optional<GeneratedLog> generated;
  std::shared_ptr<const FastLog> fast;
};

struct CachedDevice {
  RegistryEntry entry;
  int mdt = 0;
  ino_t ino = 0;
  int64_t mtime_ns = 0;
};

struct Context {
  std::mutex mu;
  std::map<std::string, CachedDevice, std::less<>> devices;
  std::map<std::string, std::unique_ptr<SharedFs>, std::less<>> states;
};

Context& Ctx() {
  static Context context;
  return context;
}

bool StatEntry(std::string_view fsname, ino_t* ino, int64_t* mtime_ns) {
  std::string path = RegistryDir() + "/" + std::string(fsname) + ".json";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *ino = st.st_ino;
  *mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

}  // namespace

Result<FileSystemHandle> LookupFileSystem(std::string_view device) {
  Context& ctx = Ctx();
  std::lock_guard lock(ctx.mu);
  FileSystemHandle handle;
  auto cached = ctx.devices.find(device);
  ino_t ino = 0;
  int64_t mtime = 0;
  if (cached != ctx.devices.end() && StatEntry(cached->second.entry.fsname, &ino, &mtime) &&
      ino == cached->second.ino && mtime == cached->second.mtime_ns) {
    handle.entry = cached->second.entry;
    handle.mdt = cached->second.mdt;
  } else {
    int mdt = 0;
    FATHOM_ASSIGN_OR_RETURN(RegistryEntry entry, FindRegistryEntry(device, &mdt));
    handle.entry = entry;
    handle.mdt = mdt;
    CachedDevice fresh{entry, mdt, 0, 0};
    if (StatEntry(entry.fsname, &fresh.ino, &fresh.mtime_ns)) ctx.devices[std::string(device)] = fresh;
  }
  auto it = ctx.states.find(handle.entry.state_dir);
  if (it == ctx.states.end()) {
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<SimState> state, SimState::Open(handle.entry.state_dir));
    auto shared = std::make_unique<SharedFs>();
    shared->state = std::move(state);
    it = ctx.states.emplace(handle.entry.state_dir, std::move(shared)).first;
  }
  SharedFs& fs = *it->second;
  handle.state = fs.state.get();
  if (handle.entry.mode == "fast") {
    FATHOM_ASSIGN_OR_RETURN(std::optional<GeneratedLog> generated, fs.state->GetGeneratedLog());
    if (!generated) {
      return ErrnoStatus(ENODEV, "file system '" + handle.entry.fsname + "' is registered in fast mode but its state " +
                                     handle.entry.state_dir + " holds no generated log: run `fathom-lustre-sim fast` again");
    }
    if (!fs.fast || !fs.generated || fs.generated->records != generated->records ||
        fs.generated->epoch_ns != generated->epoch_ns || fs.fast->spec().rate != handle.entry.rate) {
      SimConfig config = fs.state->config();
      FastLogSpec spec;
      spec.mdts = config.mdts;
      spec.records = generated->records;
      spec.epoch_ns = generated->epoch_ns;
      spec.rate = handle.entry.rate;
      spec.nid = config.nid;
      fs.fast = std::make_shared<const FastLog>(spec);
      fs.generated = generated;
    }
    handle.fast = fs.fast;
    handle.frontier = &fs.frontier;
  }
  return handle;
}

}  // namespace fathom::lustre_sim
