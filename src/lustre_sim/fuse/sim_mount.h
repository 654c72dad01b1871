// sim_mount.h — one mounted fathom-lustre-sim file system (a FUSE session over SimState).
//
// Mount() opens (or creates) the state, checks the backing directory and mount point, and
// mounts; Run() serves requests on libfuse's multi-threaded loop until the file system is
// unmounted (umount(8), fusermount3 -u) or Exit() / SIGINT / SIGTERM / SIGHUP; the
// destructor unmounts if still mounted. Move-only owner of the FUSE session; Run() on one
// thread, Exit() from any.
#pragma once

#include <memory>
#include <string>

#include "fathom/status.h"
#include "lustre_sim/state/sim_state.h"

struct fuse_session;

namespace fathom::lustre_sim {

class SimFs;

struct MountConfig {
  SimConfig sim;            // fsname, mdts, jobid_var, nid (an existing state keeps its own)
  std::string state_dir;    // absolute
  std::string backing;      // absolute, an existing directory
  std::string mountpoint;   // absolute, an existing directory
  bool debug = false;       // log every FUSE request to stderr
};

class SimMount {
 public:
  static Result<std::unique_ptr<SimMount>> Mount(const MountConfig& config);
  ~SimMount();
  SimMount(const SimMount&) = delete;
  SimMount& operator=(const SimMount&) = delete;

  Status Run();
  void Exit();
  const std::string& mountpoint() const { return mountpoint_; }

 private:
  SimMount() = default;
  std::unique_ptr<SimFs> fs_;
  fuse_session* session_ = nullptr;
  bool mounted_ = false;
  std::string mountpoint_;
};

}  // namespace fathom::lustre_sim
