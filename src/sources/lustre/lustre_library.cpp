#include "sources/lustre/lustre_library.h"

#include <dlfcn.h>
#include <limits.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

namespace fathom::lustre_source {
namespace {

constexpr const char* kDefaultNames[] = {"liblustreapi.so.1", "liblustreapi.so"};

Status ErrnoStatus(int negative_rc, const std::string& what) {
  const int err = negative_rc < 0 ? -negative_rc : EIO;
  return Status::Error(what + ": " + std::strerror(err),
                       std::error_code(err, std::generic_category()));
}

}  // namespace

Result<std::unique_ptr<LustreLibrary>> LustreLibrary::Load(const std::string& requested) {
  std::vector<std::string> names;
  if (requested.empty()) {
    names.assign(std::begin(kDefaultNames), std::end(kDefaultNames));
  } else {
    names.push_back(requested);
  }
  std::string tried;
  for (const auto& name : names) {
    dlerror();
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + (why != nullptr ? std::string(why) : name);
      continue;
    }
    std::unique_ptr<LustreLibrary> lib(new LustreLibrary(handle, name));
    FATHOM_RETURN_IF_ERROR(lib->Bind());
    return lib;
  }
  return Status::Error("liblustreapi not found (tried " + tried +
                       "): install the Lustre client or pass --lustre-library PATH");
}

LustreLibrary::~LustreLibrary() { dlclose(handle_); }

Status LustreLibrary::Bind() {
  std::string missing;
  const auto bind = [&](auto& fn, const char* symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle_, symbol));
    if (fn == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  };
  bind(changelog_start, "llapi_changelog_start");
  bind(changelog_fini, "llapi_changelog_fini");
  bind(changelog_recv, "llapi_changelog_recv");
  bind(changelog_free, "llapi_changelog_free");
  bind(changelog_clear, "llapi_changelog_clear");
  bind(changelog_set_xflags, "llapi_changelog_set_xflags");
  bind(changelog_get_fd, "llapi_changelog_get_fd");
  bind(changelog_in_buf, "llapi_changelog_in_buf");
  bind(fid2path, "llapi_fid2path");
  bind(path2fid, "llapi_path2fid");
  bind(search_fsname, "llapi_search_fsname");
  get_obd_count = reinterpret_cast<decltype(get_obd_count)>(dlsym(handle_, "llapi_get_obd_count"));
  get_mdt_index_by_fid =
      reinterpret_cast<decltype(get_mdt_index_by_fid)>(dlsym(handle_, "llapi_get_mdt_index_by_fid"));
  layout_get_by_path = reinterpret_cast<decltype(layout_get_by_path)>(dlsym(handle_, "llapi_layout_get_by_path"));
  layout_free = reinterpret_cast<decltype(layout_free)>(dlsym(handle_, "llapi_layout_free"));
  layout_stripe_count_get =
      reinterpret_cast<decltype(layout_stripe_count_get)>(dlsym(handle_, "llapi_layout_stripe_count_get"));
  layout_stripe_size_get =
      reinterpret_cast<decltype(layout_stripe_size_get)>(dlsym(handle_, "llapi_layout_stripe_size_get"));
  layout_pool_name_get =
      reinterpret_cast<decltype(layout_pool_name_get)>(dlsym(handle_, "llapi_layout_pool_name_get"));
  layout_ost_index_get =
      reinterpret_cast<decltype(layout_ost_index_get)>(dlsym(handle_, "llapi_layout_ost_index_get"));
  if (layout_get_by_path == nullptr || layout_free == nullptr || layout_stripe_count_get == nullptr ||
      layout_stripe_size_get == nullptr || layout_pool_name_get == nullptr || layout_ost_index_get == nullptr) {
    layout_get_by_path = nullptr;
    layout_free = nullptr;
    layout_stripe_count_get = nullptr;
    layout_stripe_size_get = nullptr;
    layout_pool_name_get = nullptr;
    layout_ost_index_get = nullptr;
  }
  if (!missing.empty()) {
    return Status::Error(name_ + " lacks " + missing +
                         ": it is not a liblustreapi with Lustre's changelog API; pass "
                         "--lustre-library PATH to the Lustre client's liblustreapi");
  }
  return Status::Ok();
}

Result<std::string> LustreLibrary::Fid2Path(const std::string& fsname_or_mount,
                                            const lustre::Fid& fid) const {
  char path[PATH_MAX];
  const std::string text = lustre::FormatFid(fid);
  long long recno = -1;
  int linkno = 0;
  const int rc =
      fid2path(fsname_or_mount.c_str(), text.c_str(), path, sizeof path, &recno, &linkno);
  if (rc < 0) return ErrnoStatus(rc, "fid2path " + text + " on " + fsname_or_mount);
  path[sizeof path - 1] = '\0';
  const char* p = path;
  while (*p == '/') ++p;
  return std::string(p);
}

Result<std::string> LustreLibrary::SearchFsname(const std::string& path) const {
  char fsname[LUSTRE_MAXFSNAME + 1] = {};
  const int rc = search_fsname(path.c_str(), fsname);
  if (rc < 0) return ErrnoStatus(rc, "llapi_search_fsname " + path);
  fsname[LUSTRE_MAXFSNAME] = '\0';
  return std::string(fsname);
}

Result<lustre::Fid> LustreLibrary::Path2Fid(const std::string& path) const {
  lu_fid fid{};
  const int rc = path2fid(path.c_str(), &fid);
  if (rc < 0) return ErrnoStatus(rc, "llapi_path2fid " + path);
  return lustre::FromAbi(fid);
}

Result<int> LustreLibrary::MdtCount(const std::string& mount) const {
  if (get_obd_count == nullptr) return Status::Error(name_ + " lacks llapi_get_obd_count");
  std::string mnt = mount;
  int count = 0;
  const int rc = get_obd_count(mnt.data(), &count, 1);
  if (rc < 0) return ErrnoStatus(rc, "llapi_get_obd_count " + mount);
  return count;
}

Result<LustreLibrary::FileLayout> LustreLibrary::Layout(const std::string& path) const {
  if (layout_get_by_path == nullptr) return Status::Error(name_ + " lacks the llapi_layout_* calls");
  llapi_layout* layout = layout_get_by_path(path.c_str(), 0);
  if (layout == nullptr) return ErrnoStatus(-errno, "llapi_layout_get_by_path " + path);
  std::unique_ptr<llapi_layout, llapi_layout_free_fn> owned(layout, layout_free);
  FileLayout out;
  char pool[LOV_MAXPOOLNAME + 1] = {};
  if (layout_stripe_count_get(layout, &out.stripe_count) != 0 ||
      layout_stripe_size_get(layout, &out.stripe_size) != 0 ||
      layout_pool_name_get(layout, pool, sizeof(pool)) != 0) {
    return ErrnoStatus(-errno, "llapi_layout_* " + path);
  }
  out.pool = pool;
  for (uint64_t i = 0; i < out.stripe_count; ++i) {
    uint64_t ost = 0;
    if (layout_ost_index_get(layout, static_cast<int>(i), &ost) != 0) break;  // not instantiated yet
    out.osts.push_back(static_cast<uint32_t>(ost));
  }
  return out;
}

Result<int> LustreLibrary::MdtIndex(int fd, const lustre::Fid& fid) const {
  if (get_mdt_index_by_fid == nullptr) return Status::Error(name_ + " lacks llapi_get_mdt_index_by_fid");
  const lu_fid abi = lustre::ToAbi(fid);
  int mdt = 0;
  const int rc = get_mdt_index_by_fid(fd, &abi, &mdt);
  if (rc < 0) return ErrnoStatus(rc, "llapi_get_mdt_index_by_fid " + lustre::FormatFid(fid));
  return mdt;
}

Status LustreLibrary::Clear(const std::string& device, const std::string& user,
                            uint64_t endrec) const {
  const int rc = changelog_clear(device.c_str(), user.c_str(), static_cast<long long>(endrec));
  if (rc == -ENOENT) {
    return ErrnoStatus(rc, "changelog user " + user + " is not registered on " + device +
                               ": register one on the MDS with `lctl --device " + device +
                               " changelog_register` and pass the userid it prints (cl1, ...) "
                               "to --changelog-user");
  }
  if (rc < 0) {
    return ErrnoStatus(rc, "cannot clear changelog records up to " + std::to_string(endrec) +
                               " of user " + user + " on " + device +
                               " (is the user registered? see lctl changelog_register)");
  }
  return Status::Ok();
}

Result<ChangelogReader> ChangelogReader::Open(const LustreLibrary& lib, const std::string& device,
                                              uint64_t startrec, bool follow) {
  void* priv = nullptr;
  const auto flags = static_cast<changelog_send_flag>(
      (follow ? CHANGELOG_FLAG_FOLLOW : 0) | CHANGELOG_FLAG_JOBID | CHANGELOG_FLAG_EXTRA_FLAGS);
  int rc = lib.changelog_start(&priv, flags, device.c_str(), static_cast<long long>(startrec));
  if (rc < 0) {
    return ErrnoStatus(
        rc, "cannot read the changelog of " + device +
                " (llapi_changelog_start; is it the right MDT, and is the file system mounted?)");
  }
  ChangelogReader reader(&lib, priv, -1);
  const auto xflags = static_cast<changelog_send_extra_flag>(
      CHANGELOG_EXTRA_FLAG_UIDGID | CHANGELOG_EXTRA_FLAG_NID | CHANGELOG_EXTRA_FLAG_OMODE |
      CHANGELOG_EXTRA_FLAG_XATTR);
  rc = lib.changelog_set_xflags(priv, xflags);
  if (rc < 0) return ErrnoStatus(rc, "llapi_changelog_set_xflags on " + device);
  rc = lib.changelog_get_fd(priv);
  if (rc < 0) return ErrnoStatus(rc, "llapi_changelog_get_fd on " + device);
  reader.fd_ = rc;
  return reader;
}

ChangelogReader::ChangelogReader(ChangelogReader&& other) noexcept
    : lib_(other.lib_),
      priv_(std::exchange(other.priv_, nullptr)),
      fd_(std::exchange(other.fd_, -1)) {}

ChangelogReader& ChangelogReader::operator=(ChangelogReader&& other) noexcept {
  if (this != &other) {
    Close();
    lib_ = other.lib_;
    priv_ = std::exchange(other.priv_, nullptr);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ChangelogReader::~ChangelogReader() { Close(); }

void ChangelogReader::Close() {
  if (priv_ != nullptr) lib_->changelog_fini(&priv_);
  priv_ = nullptr;
  fd_ = -1;
}

}  // namespace fathom::lustre_source
