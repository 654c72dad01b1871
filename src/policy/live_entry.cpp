// live_entry.cpp — OpenLive: the parent through openat2(RESOLVE_NO_SYMLINKS), then fstatat.
#include "policy/live_entry.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace fathom::policy {

Result<LiveEntry> OpenLive(const std::string& path) {
  LiveEntry e;
  e.path = path;
  const size_t slash = path.rfind('/');
  if (path.empty() || path[0] != '/' || slash == std::string::npos || slash + 1 == path.size()) {
    return Status::Error("'" + path + "' is not an absolute path of an entry");
  }
  const std::string parent = slash == 0 ? "/" : path.substr(0, slash);
  e.name = path.substr(slash + 1);
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = syscall(SYS_openat2, AT_FDCWD, parent.c_str(), &how, sizeof how);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      e.absent = LiveEntry::Absent::kGone;
      return e;
    }
    if (errno == ELOOP) {
      e.absent = LiveEntry::Absent::kThroughLink;
      return e;
    }
    return Status::FromErrno(errno, "cannot open " + parent);
  }
  e.parent = UniqueFd(static_cast<int>(fd));
  FATHOM_RETURN_IF_ERROR(Restat(e));
  return e;
}

Status Restat(LiveEntry& e) {
  if (fstatat(e.parent.get(), e.name.c_str(), &e.st, AT_SYMLINK_NOFOLLOW) == 0) {
    e.absent = LiveEntry::Absent::kNo;
    return Status::Ok();
  }
  if (errno == ENOENT) {
    e.absent = LiveEntry::Absent::kGone;
    return Status::Ok();
  }
  return Status::FromErrno(errno, "cannot read the attributes of " + e.path);
}

}  // namespace fathom::policy
