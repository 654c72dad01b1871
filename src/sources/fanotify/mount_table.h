// mount_table.h — the mounts of this process's mount namespace, from /proc/self/mountinfo.
//
// A file-system mark covers one file system, so the fanotify source marks each file system
// mounted below its roots too, at start and whenever the mount table changes (the kernel
// signals POLLPRI|POLLERR on an open /proc/self/mountinfo then). Plain values and functions;
// MountTable owns its descriptor and is used by one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/status.h"

namespace fathom::fanotify_internal {

struct MountEntry {
  std::string mount_point;  // absolute, octal escapes (\040 ...) decoded
  std::string fs_type;      // "tmpfs", "proc", "fuse.sshfs", ...
  std::string source;       // "tmpfs", "/dev/sda1", "server:/export", ...
};

// The entries of mountinfo text, in its order (a mount after the mounts it lies on); lines
// that do not parse are skipped.
std::vector<MountEntry> ParseMountInfo(std::string_view text);

class MountTable {
 public:
  static Result<MountTable> Open();
  // The descriptor to poll for POLLPRI (the table changed since the last poll).
  int fd() const { return fd_.get(); }
  // The whole table as it is now.
  Result<std::vector<MountEntry>> Read() const;

 private:
  explicit MountTable(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace fathom::fanotify_internal
