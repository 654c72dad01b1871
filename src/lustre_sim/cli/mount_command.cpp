// `fathom-lustre-sim mount`: mount an emulated Lustre file system over a backing directory.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "lustre_sim/cli/commands.h"
#include "lustre_sim/cli/detached_run.h"
#include "lustre_sim/cli/mount_table.h"
#include "lustre_sim/fuse/sim_mount.h"
#include "lustre_sim/state/registry.h"

namespace fathom::lustre_sim::cli {
namespace {

struct MountArgs {
  std::string fsname;
  int mdts = 1;
  int osts = 4;
  std::string state_dir;
  std::string backing;
  std::string jobid_var = "disable";
  std::string nid = "0@lo";
  std::string mountpoint;
  std::string log;
  bool foreground = false;
  bool debug = false;
};

std::string AbsoluteResolved(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  std::string out = abs.string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// Refuses a mount point that is already a mount point (our own stale mount included).
Status CheckMountPoint(const std::string& mountpoint) {
  struct stat st{};
  if (stat(mountpoint.c_str(), &st) != 0 && errno == ENOTCONN) {
    return Status::Error(mountpoint + " is a dead FUSE mount (its daemon is gone): run "
                         "`fathom-lustre-sim umount " + mountpoint + "` first");
  }
  auto mounted = MountAt(mountpoint);
  if (mounted.has_value()) {
    return Status::Error(mountpoint + " is already a mount point (" + mounted->fstype + " " + mounted->source +
                         "): unmount it first (fathom-lustre-sim umount " + mountpoint + ") or choose another");
  }
  return Status::Ok();
}

// Refuses an fsname that is already served by a live mount or fast mode.
Status CheckNotRegistered(const std::string& fsname) {
  auto existing = FindRegistryEntry(fsname);
  if (!existing.ok()) return Status::Ok();
  if (existing->mode == "fast") {
    return Status::Error("file system " + fsname + " is set up in fast mode (state " + existing->state_dir +
                         "): tear it down first with `fathom-lustre-sim umount " + fsname + "`");
  }
  auto mounted = MountAt(existing->mount);
  if (mounted.has_value() && mounted->fstype == kSimFsType) {
    return Status::Error("file system " + fsname + " is already mounted on " + existing->mount +
                         ": unmount it first with `fathom-lustre-sim umount " + existing->mount + "`");
  }
  return Status::Ok();  // a stale entry: the new mount replaces it
}

int Serve(const MountArgs& args, ReadySignal* ready) {
  MountConfig config;
  config.sim.fsname = args.fsname;
  config.sim.mdts = args.mdts;
  config.sim.osts = args.osts;
  config.sim.jobid_var = args.jobid_var;
  config.sim.nid = args.nid;
  config.state_dir = args.state_dir;
  config.backing = args.backing;
  config.mountpoint = args.mountpoint;
  config.debug = args.debug;
  auto fail = [&](const std::string& message) {
    if (ready != nullptr) {
      ready->Fail(message);
    } else {
      PrintError("mount", message);
    }
    return kExitFailure;
  };
  auto mount = SimMount::Mount(config);
  if (!mount.ok()) return fail(mount.status().message());
  RegistryEntry entry;
  entry.fsname = args.fsname;
  entry.mode = "fuse";
  entry.mount = args.mountpoint;
  entry.state_dir = args.state_dir;
  Status written = WriteRegistryEntry(entry);
  if (!written.ok()) return fail("cannot write the registry entry in " + RegistryDir() + ": " + written.message());
  if (ready != nullptr) ready->Ready();
  Status ran = (*mount)->Run();
  mount->reset();  // unmounts and closes the state before the entry goes
  auto current = FindRegistryEntry(args.fsname);
  if (current.ok() && current->mount == args.mountpoint) (void)RemoveRegistryEntry(args.fsname);
  if (!ran.ok()) {
    fprintf(stderr, "fathom-lustre-sim: %s\n", ran.message().c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

CommandRunner AddMountCommand(CLI::App& app) {
  auto args = std::make_shared<MountArgs>();
  CLI::App* sub = app.add_subcommand(
      "mount",
      "Mount an emulated Lustre file system on MOUNTPOINT. File data lives in --backing; FIDs, "
      "changelogs and users live in --state and survive remounts. Returns once the mount is live "
      "(the daemon stays in the background) unless --foreground.");
  sub->add_option("--fsname", args->fsname, "File system name (1-8 characters [A-Za-z0-9_])")->required();
  sub->add_option("--mdts", args->mdts, "Number of MDTs (1-16); must match an existing state")
      ->check(CLI::Range(1, 16))
      ->default_val(1);
  sub->add_option("--osts", args->osts, "Number of OSTs (1-64); must match an existing state")
      ->check(CLI::Range(1, 64))
      ->default_val(4);
  sub->add_option("--state", args->state_dir, "State directory (created if missing)")->required();
  sub->add_option("--backing", args->backing, "Existing directory that holds the files' data")->required();
  sub->add_option("--jobid-var", args->jobid_var,
                  "jobid_var for a new state: an environment variable, procname_uid or disable "
                  "(later: lctl set_param jobid_var=VAR)")
      ->default_val("disable");
  sub->add_option("--nid", args->nid, "Client NID put in records")->default_val("0@lo");
  sub->add_option("--log", args->log, "Append the daemon's messages to this file (default: discard)");
  sub->add_flag("-f,--foreground", args->foreground, "Stay in the foreground until unmounted");
  sub->add_flag("-d,--debug", args->debug, "Log every FUSE request (with --foreground or --log)");
  sub->add_option("MOUNTPOINT", args->mountpoint, "Existing directory to mount on")->required();
  return [args]() {
    args->mountpoint = AbsoluteResolved(args->mountpoint);
    args->backing = AbsoluteResolved(args->backing);
    args->state_dir = AbsoluteResolved(args->state_dir);
    if (args->backing == args->mountpoint || args->backing.starts_with(args->mountpoint + "/")) {
      PrintError("mount", "the backing directory " + args->backing + " must not be inside the mount point " +
                              args->mountpoint);
      return kExitUsage;
    }
    Status ok = CheckMountPoint(args->mountpoint);
    if (ok.ok()) ok = CheckNotRegistered(args->fsname);
    if (!ok.ok()) {
      PrintError("mount", ok.message());
      return kExitFailure;
    }
    if (args->foreground) return Serve(*args, nullptr);
    return RunDetached("mount", args->log, [&](ReadySignal& ready) { return Serve(*args, &ready); });
  };
}

}  // namespace fathom::lustre_sim::cli
