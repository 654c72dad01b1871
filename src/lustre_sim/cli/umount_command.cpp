// `fathom-lustre-sim umount`: unmount a mounted emulator (or tear down a fast-mode one).
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "lustre_sim/api/fast_mode.h"
#include "lustre_sim/cli/commands.h"
#include "lustre_sim/cli/mount_table.h"
#include "lustre_sim/state/registry.h"

namespace fathom::lustre_sim::cli {
namespace {

std::string AbsoluteUnresolved(const std::string& path) {
  std::error_code ec;
  std::string out = std::filesystem::absolute(path, ec).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// umount2 as root; fusermount3 -u otherwise. Returns 0 or an errno-like failure message.
Status Unmount(const std::string& mountpoint) {
  if (geteuid() == 0) {
    if (umount2(mountpoint.c_str(), 0) == 0) return Status::Ok();
    int err = errno;
    if (err == EBUSY) {
      return Status::Error(mountpoint + " is busy: a process has a file open or its working directory "
                           "there (see `fuser -vm " + mountpoint + "`); close them and retry");
    }
    if (err == EINVAL) return Status::Error(mountpoint + " is not mounted");
    return Status::FromErrno(err, "cannot unmount " + mountpoint);
  }
  pid_t pid = fork();
  if (pid == 0) {
    execlp("fusermount3", "fusermount3", "-u", mountpoint.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  return Status::Error("fusermount3 -u " + mountpoint + " failed (is it busy, or not mounted?)");
}

// The daemon removes its registry entry once it has closed the state; wait for that.
void WaitForDaemon(const std::string& fsname, const std::string& mountpoint) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    auto entry = FindRegistryEntry(fsname);
    if (!entry.ok() || entry->mount != mountpoint) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  (void)RemoveRegistryEntry(fsname);
}

}  // namespace

CommandRunner AddUmountCommand(CLI::App& app) {
  auto target = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "umount",
      "Unmount the emulator mounted on MOUNTPOINT and wait until its daemon has saved the state "
      "(or, given the fsname of a fast-mode file system, tear that down). The state stays.");
  sub->add_option("MOUNTPOINT", *target, "Mount point, or fsname of a fast-mode file system")->required();
  return [target]() {
    auto fast = FindRegistryEntry(*target);
    if (fast.ok() && fast->mode == "fast" && target->find('/') == std::string::npos) {
      Status st = TeardownFastMode(fast->fsname);
      if (!st.ok()) {
        PrintError("umount", st.message());
        return kExitFailure;
      }
      return kExitOk;
    }
    std::string mountpoint = AbsoluteUnresolved(*target);
    std::string fsname;
    for (const auto& entry : ListRegistryEntries()) {
      if (entry.mode == "fuse" && entry.mount == mountpoint) fsname = entry.fsname;
    }
    auto mounted = MountAt(mountpoint);
    if (!mounted.has_value()) {
      if (!fsname.empty()) {
        (void)RemoveRegistryEntry(fsname);
        PrintError("umount", mountpoint + " was not mounted; removed the stale registry entry of " + fsname);
        return kExitOk;
      }
      PrintError("umount", mountpoint + " is not mounted");
      return kExitFailure;
    }
    if (mounted->fstype != kSimFsType) {
      PrintError("umount", mountpoint + " is a " + mounted->fstype + " mount, not fathom-lustre-sim; use umount(8)");
      return kExitFailure;
    }
    Status st = Unmount(mountpoint);
    if (!st.ok()) {
      PrintError("umount", st.message());
      return kExitFailure;
    }
    if (!fsname.empty()) WaitForDaemon(fsname, mountpoint);
    return kExitOk;
  };
}

}  // namespace fathom::lustre_sim::cli
