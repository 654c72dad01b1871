#include "store/store_files.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace fathom::store {

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

bool OnReadOnlyFileSystem(const std::string& path) {
  struct statvfs vfs {};
  if (statvfs(path.c_str(), &vfs) != 0 && statvfs(DirectoryOf(path).c_str(), &vfs) != 0) {
    return false;
  }
  return (vfs.f_flag & ST_RDONLY) != 0;
}

StoreFiles ProbeStoreFiles(const std::string& path) {
  StoreFiles files;
  struct stat st {};
  if (stat((path + "-wal").c_str(), &st) == 0) {
    files.wal_exists = true;
    files.wal_bytes = static_cast<uint64_t>(st.st_size);
  }
  files.shm_exists = stat((path + "-shm").c_str(), &st) == 0;
  const std::string dir = DirectoryOf(path);
  if (access(dir.c_str(), W_OK) != 0) files.create_errno = errno;
  files.read_only_fs = OnReadOnlyFileSystem(path);
  if (files.read_only_fs && files.create_errno == 0) files.create_errno = EROFS;
  return files;
}

}  // namespace fathom::store
