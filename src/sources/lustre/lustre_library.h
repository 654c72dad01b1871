// lustre_library.h — liblustreapi, loaded at run time (dlopen), and a changelog reader on it.
//
// LustreLibrary::Load opens the library named by lustre.library (a path or a soname), or
// else liblustreapi.so.1 then liblustreapi.so, and resolves the entry points fathom uses
// (signatures from lustre/lustre_abi.h), so one fathom binary runs on nodes with and without
// a Lustre client. The library stays loaded for the life of the process (RTLD_NODELETE):
// Lustre's library keeps internal state that must not be unmapped under it.
// ChangelogReader owns one llapi_changelog_start handle (llapi_changelog_fini on
// destruction); it is move-only and used by one thread at a time. Fid2Path is thread-safe
// as liblustreapi's llapi_fid2path is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fathom/status.h"
#include "lustre/fid.h"
#include "lustre/lustre_abi.h"

namespace fathom::lustre_source {

class LustreLibrary {
 public:
  // `requested`: "" for the default sonames. The error names every name tried.
  static Result<std::unique_ptr<LustreLibrary>> Load(const std::string& requested);
  ~LustreLibrary();
  LustreLibrary(const LustreLibrary&) = delete;
  LustreLibrary& operator=(const LustreLibrary&) = delete;

  // The name the library was opened by.
  const std::string& name() const { return name_; }

  // The path of `fid` relative to the file system root ("" for the root, "a/b" otherwise),
  // through llapi_fid2path on `fsname_or_mount`. Errors carry the negative errno's code.
  Result<std::string> Fid2Path(const std::string& fsname_or_mount, const lustre::Fid& fid) const;
  // llapi_changelog_clear: `user`'s records up to `endrec` on `device`.
  Status Clear(const std::string& device, const std::string& user, uint64_t endrec) const;
  // llapi_search_fsname: the name of the Lustre file system `path` is on.
  Result<std::string> SearchFsname(const std::string& path) const;
  // llapi_path2fid: the FID of the object at `path`.
  Result<lustre::Fid> Path2Fid(const std::string& path) const;
  // llapi_get_obd_count(is_mdt = 1): how many MDTs the file system mounted at `mount` has; an
  // error when the library lacks the call (it is optional) or it fails.
  Result<int> MdtCount(const std::string& mount) const;
  // llapi_get_mdt_index_by_fid: the MDT holding `fid`, asked through `fd` (any descriptor
  // on the file system); an error when the library lacks the call (it is optional) or it
  // fails.
  Result<int> MdtIndex(int fd, const lustre::Fid& fid) const;

  // A regular file's RAID0 layout, through llapi_layout_get_by_path and its getters.
  struct FileLayout {
    uint64_t stripe_count = 0;
    uint64_t stripe_size = 0;
    std::string pool;                 // "" when none
    std::vector<uint32_t> osts;       // the stripes' OST indexes, in stripe order
  };
  // An error when the library lacks the layout calls (they are optional) or they fail.
  Result<FileLayout> Layout(const std::string& path) const;

  llapi_changelog_start_fn changelog_start = nullptr;
  llapi_changelog_fini_fn changelog_fini = nullptr;
  llapi_changelog_recv_fn changelog_recv = nullptr;
  llapi_changelog_free_fn changelog_free = nullptr;
  llapi_changelog_clear_fn changelog_clear = nullptr;
  llapi_changelog_set_xflags_fn changelog_set_xflags = nullptr;
  llapi_changelog_get_fd_fn changelog_get_fd = nullptr;
  llapi_fid2path_fn fid2path = nullptr;
  llapi_path2fid_fn path2fid = nullptr;
  llapi_search_fsname_fn search_fsname = nullptr;
  // Optional: nullptr when the library lacks it.
  int (*get_obd_count)(char* mnt, int* count, int is_mdt) = nullptr;
  int (*get_mdt_index_by_fid)(int fd, const lu_fid* fid, int* mdt_index) = nullptr;
  // llapi_changelog_in_buf(priv): 1 when records read from the device are still buffered.
  int (*changelog_in_buf)(void* priv) = nullptr;
  // Optional layout calls: all bound, or all nullptr.
  llapi_layout_get_by_path_fn layout_get_by_path = nullptr;
  llapi_layout_free_fn layout_free = nullptr;
  llapi_layout_stripe_count_get_fn layout_stripe_count_get = nullptr;
  llapi_layout_stripe_size_get_fn layout_stripe_size_get = nullptr;
  llapi_layout_pool_name_get_fn layout_pool_name_get = nullptr;
  llapi_layout_ost_index_get_fn layout_ost_index_get = nullptr;

 private:
  LustreLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  Status Bind();

  void* handle_;
  std::string name_;
};

// One changelog stream: records of `device` from `startrec` on (0: from the oldest record
// kept), with the jobid and every extra-flag extension (uid/gid, NID, open mode, xattr
// name). With `follow` it waits for new records (CHANGELOG_FLAG_FOLLOW); without, Receive()
// reports the end of the log.
class ChangelogReader {
 public:
  static Result<ChangelogReader> Open(const LustreLibrary& lib, const std::string& device,
                                      uint64_t startrec, bool follow);
  ChangelogReader(ChangelogReader&& other) noexcept;
  ChangelogReader& operator=(ChangelogReader&& other) noexcept;
  ChangelogReader(const ChangelogReader&) = delete;
  ChangelogReader& operator=(const ChangelogReader&) = delete;
  ~ChangelogReader();

  // A descriptor that polls readable when the device has records to read.
  int fd() const { return fd_; }
  // True when records already read from the device wait in the library's buffer.
  bool buffered() const { return lib_->changelog_in_buf(priv_) != 0; }
  // llapi_changelog_recv: 0 with *rec set, 1 at the end of the log, or a negative errno.
  int Receive(changelog_rec** rec) const { return lib_->changelog_recv(priv_, rec); }
  void Free(changelog_rec** rec) const { lib_->changelog_free(rec); }

 private:
  ChangelogReader(const LustreLibrary* lib, void* priv, int fd) : lib_(lib), priv_(priv), fd_(fd) {}
  void Close();

  const LustreLibrary* lib_ = nullptr;
  void* priv_ = nullptr;
  int fd_ = -1;
};

}  // namespace fathom::lustre_source
