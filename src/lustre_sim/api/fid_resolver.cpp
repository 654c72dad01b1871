#include "lustre_sim/api/fid_resolver.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "lustre/fid.h"
#include "lustre_sim/api/api_context.h"

namespace fathom::lustre_sim {
namespace {

int CopyOut(const std::string& text, char* path, int pathlen) {
  if (text.size() + 1 > static_cast<size_t>(pathlen)) return -ENAMETOOLONG;
  std::memcpy(path, text.c_str(), text.size() + 1);
  return 0;
}

uint64_t FastApplied(const FileSystemHandle& fs, int mdt) {
  uint64_t applied = fs.frontier->Applied(mdt);
  if (applied != 0) return applied;
  auto users = fs.state->Users(mdt);
  if (users.ok()) {
    for (const auto& user : *users) applied = std::max(applied, user.cleared);
  }
  return applied;
}

}  // namespace

int Fid2Path(const char* device, const char* fidstr, char* path, int pathlen, long long* /*recno*/, int* linkno) {
  if (device == nullptr || *device == '\0' || fidstr == nullptr || path == nullptr) return -EINVAL;
  Result<lustre::Fid> fid = lustre::ParseFid(fidstr);
  if (!fid.ok()) return -EINVAL;
  Result<FileSystemHandle> found = LookupFileSystem(device);
  if (!found.ok()) {
    int err = StatusErrno(found.status());
    return err == EINVAL ? -EINVAL : -ENODEV;
  }
  if (pathlen < 3) return -EOVERFLOW;
  FileSystemHandle& fs = *found;
  if (fs.fast) {
    int mdt = fs.fast->MdtOf(*fid);
    uint64_t applied = mdt >= 0 ? FastApplied(fs, mdt) : 0;
    Result<std::string> resolved = fs.fast->PathAt(*fid, applied);
    if (!resolved.ok()) return -StatusErrno(resolved.status());
    return CopyOut(*resolved, path, pathlen);
  }
  if (*fid == lustre::kRootFid) return CopyOut("", path, pathlen);
  std::vector<std::string> paths = fs.state->Paths(*fid);
  if (paths.empty()) {
    Result<Entry> entry = fs.state->Get(*fid);
    return entry.ok() ? -ENOENT : -StatusErrno(entry.status());
  }
  size_t index = 0;
  if (linkno != nullptr && *linkno >= 0 && static_cast<size_t>(*linkno) < paths.size()) {
    index = static_cast<size_t>(*linkno);
    if (index + 1 < paths.size()) *linkno = static_cast<int>(index + 1);
  }
  return CopyOut(paths[index].substr(1), path, pathlen);
}

int SearchFsname(const char* path, char* fsname) {
  if (path == nullptr || fsname == nullptr || *path == '\0') return -EINVAL;
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) return -EINVAL;
  Result<FileSystemHandle> found = LookupFileSystem(abs.lexically_normal().string());
  if (!found.ok()) {
    struct stat st {};
    return ::stat(path, &st) != 0 ? -errno : -ENODEV;
  }
  const std::string& name = found->entry.fsname;
  const size_t n = std::min(name.size(), static_cast<size_t>(LUSTRE_MAXFSNAME));
  std::memcpy(fsname, name.data(), n);
  fsname[n] = '\0';
  return 0;
}

int Path2Fid(const char* path, lu_fid* fid) {
  if (path == nullptr || fid == nullptr || *path == '\0') return -EINVAL;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) return -EINVAL;
  std::string normal = abs.lexically_normal().string();
  Result<FileSystemHandle> found = LookupFileSystem(normal);
  if (!found.ok()) {
    // Not in an emulated Lustre mount: missing (-ENOENT) or not a Lustre file (-ENOTSUP).
    struct stat st {};
    return ::lstat(path, &st) != 0 ? -errno : -ENOTSUP;
  }
  FileSystemHandle& fs = *found;
  std::string mount = std::filesystem::path(fs.entry.mount).lexically_normal().string();
  while (mount.size() > 1 && mount.back() == '/') mount.pop_back();
  std::string relative = normal.size() > mount.size() ? normal.substr(mount.size()) : "/";
  Result<Entry> entry = fs.state->Resolve(relative);
  if (!entry.ok()) return -StatusErrno(entry.status());
  *fid = lustre::ToAbi(entry->fid);
  return 0;
}

int MdtIndexByFid(int fd, const lu_fid* fid, int* mdt_index) {
  if (fid == nullptr || mdt_index == nullptr) return -EINVAL;
  std::error_code ec;
  const std::filesystem::path open_at = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  if (ec) return -EBADF;
  Result<FileSystemHandle> found = LookupFileSystem(open_at.lexically_normal().string());
  if (!found.ok()) return -ENODEV;
  Result<Entry> entry = found->state->Get(lustre::FromAbi(*fid));
  if (!entry.ok()) return -StatusErrno(entry.status());
  *mdt_index = entry->mdt;
  return 0;
}

}  // namespace fathom::lustre_sim
