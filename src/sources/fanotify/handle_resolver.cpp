#include "sources/fanotify/handle_resolver.h"

#include <fcntl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fathom::fanotify_internal {
namespace {

constexpr size_t kMaxHandleBytes = 128;  // MAX_HANDLE_SZ
constexpr std::string_view kDeletedSuffix = " (deleted)";

struct HandleBuffer {
  file_handle fh;
  unsigned char bytes[kMaxHandleBytes];
};

}  // namespace

void HandleResolver::AddFileSystem(std::string_view fsid, UniqueFd mount_fd) {
  mounts_.emplace(std::string(fsid), Mount{std::move(mount_fd), {}});
}

void HandleResolver::AddFileSystem(std::string_view fsid, std::string mount_point) {
  mounts_.emplace(std::string(fsid), Mount{UniqueFd(), std::move(mount_point)});
}

void HandleResolver::RemoveFileSystem(std::string_view fsid) { mounts_.erase(std::string(fsid)); }

Result<std::string> HandleResolver::PathOf(const HandleKey& key) const {
  auto mount = mounts_.find(std::string(KeyFsid(key)));
  std::string_view bytes = KeyHandleBytes(key);
  if (mount == mounts_.end() || bytes.size() > kMaxHandleBytes) {
    return Status::Error("fanotify: a directory handle from a file system that is not watched",
                         std::error_code(EXDEV, std::generic_category()));
  }
  HandleBuffer buf;
  buf.fh.handle_bytes = static_cast<unsigned>(bytes.size());
  buf.fh.handle_type = KeyHandleType(key);
  std::memcpy(buf.fh.f_handle, bytes.data(), bytes.size());
  UniqueFd opened_mount;
  int mount_fd = mount->second.fd.get();
  if (!mount->second.fd.valid()) {
    const std::string& at = mount->second.mount_point;
    opened_mount = UniqueFd(open(at.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!opened_mount.valid()) return Status::FromErrno(errno, "fanotify: open " + at);
    mount_fd = opened_mount.get();
  }
  int fd = open_by_handle_at(mount_fd, &buf.fh, O_PATH | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "fanotify: open_by_handle_at");
  UniqueFd opened(fd);
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  char path[4096];
  ssize_t n = readlink(link.c_str(), path, sizeof path);
  if (n < 0 || static_cast<size_t>(n) >= sizeof path) {
    return Status::FromErrno(n < 0 ? errno : ENAMETOOLONG, "fanotify: readlink " + link);
  }
  std::string result(path, static_cast<size_t>(n));
  if (result.empty() || result[0] != '/' || result.ends_with(kDeletedSuffix)) {
    return Status::Error("fanotify: directory " + result + " is gone",
                         std::error_code(ESTALE, std::generic_category()));
  }
  return result;
}

Result<std::string> FsidOf(int fd, const std::string& path) {
  struct statfs sfs;
  if (fstatfs(fd, &sfs) != 0) return Status::FromErrno(errno, "fanotify: statfs " + path);
  std::string fsid(kFsidBytes, '\0');
  static_assert(sizeof sfs.f_fsid == kFsidBytes);
  std::memcpy(fsid.data(), &sfs.f_fsid, kFsidBytes);
  return fsid;
}

Result<HandleKey> HandleOfPath(const std::string& path) {
  HandleBuffer buf;
  buf.fh.handle_bytes = kMaxHandleBytes;
  int mount_id = 0;
  if (name_to_handle_at(AT_FDCWD, path.c_str(), &buf.fh, &mount_id, 0) != 0) {
    if (errno == EOPNOTSUPP) {
      return Status::Error("file system at " + path + " does not support file handles",
                           std::error_code(EOPNOTSUPP, std::generic_category()));
    }
    return Status::FromErrno(errno, "fanotify: name_to_handle_at " + path);
  }
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "fanotify: open " + path);
  UniqueFd owned(fd);
  FATHOM_ASSIGN_OR_RETURN(std::string fsid, FsidOf(fd, path));
  return MakeHandleKey(fsid.data(), buf.fh.handle_type, buf.fh.f_handle, buf.fh.handle_bytes);
}

}  // namespace fathom::fanotify_internal
