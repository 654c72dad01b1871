// handle_resolver.h — the current path of a directory from its file handle.
//
// Holds one open directory per watched file system (keyed by fsid) to pass as the mount fd of
// open_by_handle_at(O_PATH), or, for a file system mounted inside the watched tree, its mount
// point, opened for each lookup (an open descriptor would keep it from being unmounted); the
// path is read back from /proc/self/fd. The answer is where the
// directory is NOW, which may be later than the event being resolved. Owns its descriptors.
// Not thread-safe: used by the one thread that drains the source.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "fathom/status.h"
#include "sources/fanotify/handle_key.h"
#include "core/unique_fd.h"

namespace fathom::fanotify_internal {

class HandleResolver {
 public:
  // Handles whose fsid is `fsid` are opened relative to `mount_fd`.
  void AddFileSystem(std::string_view fsid, UniqueFd mount_fd);
  // Handles whose fsid is `fsid` are opened relative to the directory at `mount_point`.
  void AddFileSystem(std::string_view fsid, std::string mount_point);
  void RemoveFileSystem(std::string_view fsid);
  // The directory's path, or an error whose code() is the errno that open_by_handle_at or
  // readlink gave (ESTALE: the directory is gone; EXDEV: a file system fathom does not watch).
  Result<std::string> PathOf(const HandleKey& key) const;

 private:
  struct Mount {
    UniqueFd fd;             // held open, or
    std::string mount_point; // opened for each lookup
  };
  std::unordered_map<std::string, Mount> mounts_;
};

// The handle of `path` on its file system (name_to_handle_at + statfs's fsid).
Result<HandleKey> HandleOfPath(const std::string& path);
// The fsid of the file system holding the open file `fd`, as the 8 bytes events carry.
Result<std::string> FsidOf(int fd, const std::string& path);

}  // namespace fathom::fanotify_internal
