// The liblustreapi entry points, with Lustre's names and signatures and C linkage. Only
// these symbols are exported from liblustreapi.so (see lustreapi.map).
#include <cerrno>
#include <cstdlib>
#include <string>

#include "lustre/lustre_abi.h"
#include "lustre_sim/api/changelog_reader.h"
#include "lustre_sim/api/fid_resolver.h"
#include "lustre_sim/api/api_context.h"

namespace {

using fathom::lustre_sim::ChangelogReader;

constexpr uint64_t kReaderMagic = 0x6c7573696d63686cULL;  // "lusimchl"

// What *priv points to: a tag so that a stray pointer is refused, and the reader.
struct ReaderHandle {
  uint64_t magic = kReaderMagic;
  std::unique_ptr<ChangelogReader> reader;
};

ReaderHandle* Handle(void* priv) {
  auto* handle = static_cast<ReaderHandle*>(priv);
  return handle != nullptr && handle->magic == kReaderMagic ? handle : nullptr;
}

int Start(void** priv, int flags, const char* device, const char* user, uint64_t mask, long long startrec) {
  if (priv == nullptr || device == nullptr) return -EINVAL;
  auto reader = ChangelogReader::Start(flags, device, user != nullptr ? user : "", mask, startrec);
  if (!reader.ok()) return -fathom::lustre_sim::StatusErrno(reader.status());
  auto* handle = new (std::nothrow) ReaderHandle();
  if (handle == nullptr) return -ENOMEM;
  handle->reader = std::move(reader).value();
  *priv = handle;
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int llapi_changelog_start(void** priv, enum changelog_send_flag flags,
                                                                 const char* mdtname, long long startrec) {
  return Start(priv, flags, mdtname, nullptr, 0, startrec);
}

__attribute__((visibility("default"))) int llapi_changelog_start_user(void** priv, enum changelog_send_flag flags,
                                                                      const char* mdtname, const char* user,
                                                                      uint64_t mask, long long startrec) {
  if (user == nullptr || *user == '\0') return -EINVAL;
  return Start(priv, flags, mdtname, user, mask, startrec);
}

__attribute__((visibility("default"))) int llapi_changelog_fini(void** priv) {
  if (priv == nullptr) return -EINVAL;
  ReaderHandle* handle = Handle(*priv);
  if (handle == nullptr) return -EINVAL;
  handle->magic = 0;
  delete handle;
  *priv = nullptr;
  return 0;
}

__attribute__((visibility("default"))) int llapi_changelog_recv(void* priv, struct changelog_rec** rech) {
  ReaderHandle* handle = Handle(priv);
  if (handle == nullptr || rech == nullptr) return -EINVAL;
  return handle->reader->Recv(rech);
}

__attribute__((visibility("default"))) int llapi_changelog_free(struct changelog_rec** rech) {
  if (rech != nullptr) {
    std::free(*rech);
    *rech = nullptr;
  }
  return 0;
}

__attribute__((visibility("default"))) int llapi_changelog_set_xflags(void* priv,
                                                                      enum changelog_send_extra_flag extra_flags) {
  ReaderHandle* handle = Handle(priv);
  if (handle == nullptr) return -EINVAL;
  handle->reader->SetExtraFlags(static_cast<uint64_t>(extra_flags));
  return 0;
}

__attribute__((visibility("default"))) int llapi_changelog_get_fd(void* priv) {
  ReaderHandle* handle = Handle(priv);
  if (handle == nullptr) return -EINVAL;
  return handle->reader->fd();
}

__attribute__((visibility("default"))) int llapi_changelog_in_buf(void* priv) {
  ReaderHandle* handle = Handle(priv);
  if (handle == nullptr) return 0;
  return handle->reader->InBuffer() ? 1 : 0;
}

__attribute__((visibility("default"))) int llapi_changelog_clear(const char* mdtname, const char* idstr,
                                                                 long long endrec) {
  if (mdtname == nullptr || idstr == nullptr || endrec < 0) return -EINVAL;
  auto found = fathom::lustre_sim::LookupFileSystem(mdtname);
  if (!found.ok()) return -ENOENT;
  std::string user(idstr);
  size_t dash = user.find('-');
  if (dash != std::string::npos) user.resize(dash);
  fathom::Status status = found->state->Clear(found->mdt, user, static_cast<uint64_t>(endrec));
  return -fathom::lustre_sim::StatusErrno(status);
}

__attribute__((visibility("default"))) int llapi_fid2path(const char* device, const char* fidstr, char* path,
                                                          int pathlen, long long* recno, int* linkno) {
  return fathom::lustre_sim::Fid2Path(device, fidstr, path, pathlen, recno, linkno);
}

__attribute__((visibility("default"))) int llapi_path2fid(const char* path, struct lu_fid* fid) {
  return fathom::lustre_sim::Path2Fid(path, fid);
}

__attribute__((visibility("default"))) int llapi_get_mdt_index_by_fid(int fd, const struct lu_fid* fid,
                                                                      int* mdt_index) {
  return fathom::lustre_sim::MdtIndexByFid(fd, fid, mdt_index);
}

__attribute__((visibility("default"))) int llapi_search_fsname(const char* pathname, char* fsname) {
  return fathom::lustre_sim::SearchFsname(pathname, fsname);
}

// The file system's MDT count (is_mdt), or its OST count: none, the emulator has no OSTs.
__attribute__((visibility("default"))) int llapi_get_obd_count(char* mnt, int* count, int is_mdt) {
  if (mnt == nullptr || count == nullptr || *mnt == '\0') return -EINVAL;
  auto found = fathom::lustre_sim::LookupFileSystem(mnt);
  if (!found.ok()) return -ENODEV;
  *count = is_mdt != 0 ? found->state->config().mdts : 0;
  return 0;
}

}  // extern "C"
