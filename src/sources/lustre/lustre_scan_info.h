// lustre_scan_info.h — Lustre's view of the objects a scan reads, for the catalog's Lustre
// columns, through liblustreapi: the FID (llapi_path2fid), the MDT holding it
// (llapi_get_mdt_index_by_fid) and, for a regular file, its layout: stripe count and size,
// pool and the OST index of each stripe (llapi_layout_get_by_path and its getters). The
// MDT and layout calls are optional in the library; without them those columns stay empty.
//
// LustreView loads the library for a set of trees and describes the objects in those on
// Lustre (the scanner's workers, the catalog's follower and its settling).
//
// Thread-safe (the library's calls are); used by the scanner's workers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fathom/catalog.h"
#include "sources/lustre/lustre_library.h"

namespace fathom::lustre_source {

// Whether `path` lies on a Lustre file system `lib` reaches (llapi_search_fsname).
bool OnLustre(const LustreLibrary& lib, const std::string& path);

// Fills `attrs.lustre` for the object at `path` (`dirfd`: a descriptor on the same file
// system, for the MDT query; `attrs.mode` must be set, it tells a regular file); leaves `attrs` as they are when the library cannot say (not
// Lustre, gone since it was listed).
void DescribeLustreObject(const LustreLibrary& lib, int dirfd, const std::string& path, catalog::Attrs& attrs);

// Lustre's view of the objects below some trees. Owns the library and a descriptor on each
// tree's root that is on Lustre (for the MDT query).
class LustreView {
 public:
  // `library`: the liblustreapi asked for ("" for the system's, when there is one: its
  // absence is no error, while a library asked for must load). nullptr when no root is on
  // Lustre.
  static Result<std::shared_ptr<LustreView>> ForRoots(const std::string& library,
                                                      const std::vector<std::string>& roots);
  ~LustreView();
  LustreView(const LustreView&) = delete;
  LustreView& operator=(const LustreView&) = delete;

  // DescribeLustreObject for `path`; `dirfd` < 0: through the descriptor of the root `path`
  // lies under (nothing for a path under none).
  void Describe(int dirfd, const std::string& path, catalog::Attrs& attrs) const;

 private:
  explicit LustreView(std::unique_ptr<LustreLibrary> lib) : lib_(std::move(lib)) {}

  std::unique_ptr<LustreLibrary> lib_;
  std::vector<std::pair<std::string, int>> roots_;  // root on Lustre, a descriptor on it
};

// The scanner's and the follower's describe hook for `view` (nullptr when `view` is).
std::function<void(int dirfd, const std::string& path, catalog::Attrs& attrs)> DescribeHook(
    const std::shared_ptr<LustreView>& view);

}  // namespace fathom::lustre_source
