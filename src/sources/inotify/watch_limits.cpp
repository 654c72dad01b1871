#include "sources/inotify/watch_limits.h"

#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <optional>
#include <string>

namespace fathom::inotify_internal {
namespace {

std::optional<unsigned long long> ReadNumber(const char* path) {
  std::ifstream in(path);
  unsigned long long v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

std::string Current(const std::optional<unsigned long long>& v) {
  return v ? std::to_string(*v) : std::string("unknown");
}

// " (this user namespace allows only K: user.NAME)" when a user namespace's own limit is
// lower than the system-wide one, as inside many containers.
std::string NamespaceNote(const std::optional<unsigned long long>& global, const char* ns_file,
                          const char* ns_key) {
  auto ns = ReadNumber(ns_file);
  if (!ns || (global && *ns >= *global)) return "";
  return " (this user namespace allows only " + std::to_string(*ns) + ": " + ns_key + ")";
}

std::string Suggested(const std::optional<unsigned long long>& v, unsigned long long floor) {
  return std::to_string(std::max(v ? *v * 2 : floor, floor));
}

}  // namespace

Status WatchError(int err, std::string_view path) {
  std::string where = "cannot add an inotify watch on " + std::string(path);
  if (err != ENOSPC) return Status::FromErrno(err, where);
  auto limit = ReadNumber("/proc/sys/fs/inotify/max_user_watches");
  return Status::Error(
      where + ": the limit fs.inotify.max_user_watches (currently " + Current(limit) +
          ") is reached" +
          NamespaceNote(limit, "/proc/sys/user/max_inotify_watches", "user.max_inotify_watches") +
          "; raise it with `sysctl fs.inotify.max_user_watches=" + Suggested(limit, 524288) +
          "` (or in /etc/sysctl.d/) to at least the number of directories to watch (`find DIR "
          "-type d | wc -l`; each watch costs about 1 KiB of kernel memory), or use `--backend "
          "fanotify`, which needs no per-directory "
          "watches",
      std::error_code(err, std::generic_category()));
}

Status InstanceError(int err) {
  const std::string what = "cannot create an inotify instance";
  if (err != EMFILE) return Status::FromErrno(err, what);
  // EMFILE is either the per-user instance limit or this process's open-file limit: if another
  // descriptor can still be opened, it is the former.
  int probe = eventfd(0, EFD_CLOEXEC);
  if (probe < 0) {
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    return Status::Error(what + ": this process has too many open files (ulimit -n is " +
                             std::to_string(rl.rlim_cur) + "); raise it with `ulimit -n`",
                         std::error_code(err, std::generic_category()));
  }
  close(probe);
  auto limit = ReadNumber("/proc/sys/fs/inotify/max_user_instances");
  return Status::Error(
      what + ": the limit fs.inotify.max_user_instances (currently " + Current(limit) +
          ") is reached" +
          NamespaceNote(limit, "/proc/sys/user/max_inotify_instances",
                        "user.max_inotify_instances") +
          "; raise it with `sysctl fs.inotify.max_user_instances=" + Suggested(limit, 1024) +
          "` (or in /etc/sysctl.d/), or use `--backend fanotify`, which needs no inotify instance",
      std::error_code(err, std::generic_category()));
}

}  // namespace fathom::inotify_internal
