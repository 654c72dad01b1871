#include "sources/internal/dir_listing.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fathom::source_internal {

Status ListDirectory(const std::string& path,
                     const std::function<void(std::string_view name, bool is_dir)>& fn) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "cannot list directory " + path);
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    int err = errno;
    close(fd);
    return Status::FromErrno(err, "cannot list directory " + path);
  }
  while (dirent* d = readdir(dir)) {
    const char* name = d->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    bool is_dir = d->d_type == DT_DIR;
    if (d->d_type == DT_UNKNOWN) {
      struct stat st;
      is_dir = fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    fn(std::string_view(name, std::strlen(name)), is_dir);
  }
  closedir(dir);
  return Status::Ok();
}

}  // namespace fathom::source_internal
