// The liblustreapi entry points, with Lustre's names and signatures and C linkage. Only
// these symbols are exported from liblustreapi.so (see lustreapi.map).
#include <sys/xattr.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

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

constexpr uint64_t kLayoutMagic = 0x6c7573696d6c6f76ULL;  // "lusimlov"

}  // namespace

// What llapi_layout_get_by_* return: a RAID0 layout read from the lustre.lov attribute.
struct llapi_layout {
  uint64_t magic = kLayoutMagic;
  uint64_t stripe_count = 0;
  uint64_t stripe_size = 0;
  std::string pool;
  std::vector<uint64_t> osts;
};

namespace {

// Parses a lov_user_md_v1/v3 and its objects; nullptr with errno set when malformed.
llapi_layout* LayoutFromLov(const std::string& lov) {
  lov_user_md_v1 v1{};
  if (lov.size() < sizeof(v1)) {
    errno = EINVAL;
    return nullptr;
  }
  std::memcpy(&v1, lov.data(), sizeof(v1));
  size_t header = sizeof(lov_user_md_v1);
  auto* layout = new (std::nothrow) llapi_layout();
  if (layout == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  if (v1.lmm_magic == LOV_USER_MAGIC_V3 && lov.size() >= sizeof(lov_user_md_v3)) {
    lov_user_md_v3 v3{};
    std::memcpy(&v3, lov.data(), sizeof(v3));
    layout->pool.assign(v3.lmm_pool_name, strnlen(v3.lmm_pool_name, sizeof(v3.lmm_pool_name)));
    header = sizeof(lov_user_md_v3);
  } else if (v1.lmm_magic != LOV_USER_MAGIC_V1) {
    delete layout;
    errno = EINVAL;
    return nullptr;
  }
  layout->stripe_count = v1.lmm_stripe_count;
  layout->stripe_size = v1.lmm_stripe_size;
  for (size_t i = 0; i < v1.lmm_stripe_count; ++i) {
    size_t at = header + i * sizeof(lov_user_ost_data_v1);
    if (at + sizeof(lov_user_ost_data_v1) > lov.size()) break;
    lov_user_ost_data_v1 object{};
    std::memcpy(&object, lov.data() + at, sizeof(object));
    layout->osts.push_back(object.l_ost_idx);
  }
  return layout;
}

// Reads the lustre.lov attribute with `get(buf, size)` (getxattr/fgetxattr).
template <typename Get>
llapi_layout* LayoutFromXattr(Get get) {
  std::string lov(4096, '\0');
  for (int attempt = 0; attempt < 4; ++attempt) {
    ssize_t n = get(lov.data(), lov.size());
    if (n >= 0) {
      lov.resize(static_cast<size_t>(n));
      return LayoutFromLov(lov);
    }
    if (errno != ERANGE) return nullptr;
    ssize_t need = get(nullptr, 0);
    if (need < 0) return nullptr;
    lov.assign(static_cast<size_t>(need), '\0');
  }
  errno = EAGAIN;
  return nullptr;
}

const llapi_layout* Checked(const llapi_layout* layout) {
  if (layout == nullptr || layout->magic != kLayoutMagic) {
    errno = EINVAL;
    return nullptr;
  }
  return layout;
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

// The file system's MDT count (is_mdt), or its OST count.
__attribute__((visibility("default"))) int llapi_get_obd_count(char* mnt, int* count, int is_mdt) {
  if (mnt == nullptr || count == nullptr || *mnt == '\0') return -EINVAL;
  auto found = fathom::lustre_sim::LookupFileSystem(mnt);
  if (!found.ok()) return -ENODEV;
  *count = is_mdt != 0 ? found->state->config().mdts : found->state->config().osts;
  return 0;
}

// Layouts, as lustreapi.h declares them: nullptr / -1 with errno set on failure.
__attribute__((visibility("default"))) struct llapi_layout* llapi_layout_get_by_path(const char* path,
                                                                                     uint32_t /*flags*/) {
  if (path == nullptr) {
    errno = EINVAL;
    return nullptr;
  }
  return LayoutFromXattr([&](char* buf, size_t size) { return getxattr(path, XATTR_LUSTRE_LOV, buf, size); });
}

__attribute__((visibility("default"))) struct llapi_layout* llapi_layout_get_by_fd(int fd, uint32_t /*flags*/) {
  return LayoutFromXattr([&](char* buf, size_t size) { return fgetxattr(fd, XATTR_LUSTRE_LOV, buf, size); });
}

__attribute__((visibility("default"))) void llapi_layout_free(struct llapi_layout* layout) {
  if (layout == nullptr || layout->magic != kLayoutMagic) return;
  layout->magic = 0;
  delete layout;
}

__attribute__((visibility("default"))) int llapi_layout_stripe_count_get(const struct llapi_layout* layout,
                                                                         uint64_t* count) {
  if (Checked(layout) == nullptr || count == nullptr) {
    errno = EINVAL;
    return -1;
  }
  *count = layout->stripe_count;
  return 0;
}

__attribute__((visibility("default"))) int llapi_layout_stripe_size_get(const struct llapi_layout* layout,
                                                                        uint64_t* size) {
  if (Checked(layout) == nullptr || size == nullptr) {
    errno = EINVAL;
    return -1;
  }
  *size = layout->stripe_size;
  return 0;
}

__attribute__((visibility("default"))) int llapi_layout_pool_name_get(const struct llapi_layout* layout,
                                                                      char* pool_name, size_t pool_name_len) {
  if (Checked(layout) == nullptr || pool_name == nullptr) {
    errno = EINVAL;
    return -1;
  }
  if (pool_name_len == 0) return 0;
  size_t n = std::min(layout->pool.size(), pool_name_len - 1);
  std::memcpy(pool_name, layout->pool.data(), n);
  pool_name[n] = '\0';
  return 0;
}

__attribute__((visibility("default"))) int llapi_layout_ost_index_get(const struct llapi_layout* layout,
                                                                      int stripe_number, uint64_t* index) {
  if (Checked(layout) == nullptr || index == nullptr || stripe_number < 0 ||
      static_cast<size_t>(stripe_number) >= layout->osts.size()) {
    errno = EINVAL;
    return -1;
  }
  *index = layout->osts[static_cast<size_t>(stripe_number)];
  return 0;
}

}  // extern "C"
