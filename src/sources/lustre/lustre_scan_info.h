// lustre_scan_info.h — Lustre's view of the objects a scan reads, for the catalog's Lustre
// columns, through liblustreapi: the FID (llapi_path2fid), the MDT holding it
// (llapi_get_mdt_index_by_fid) and, for a regular file, its layout: stripe count and size,
// pool and the OST index of each stripe (llapi_layout_get_by_path and its getters). The
// MDT and layout calls are optional in the library; without them those columns stay empty.
//
// Thread-safe (the library's calls are); used by the scanner's workers.
#pragma once

#include <string>

#include "fathom/catalog.h"
#include "sources/lustre/lustre_library.h"

namespace fathom::lustre_source {

// Whether `path` lies on a Lustre file system `lib` reaches (llapi_search_fsname).
bool OnLustre(const LustreLibrary& lib, const std::string& path);

// Fills `attrs.lustre` for the object at `path` (`dirfd`: a descriptor on the same file
// system, for the MDT query; `attrs.mode` must be set, it tells a regular file); leaves `attrs` as they are when the library cannot say (not
// Lustre, gone since it was listed).
void DescribeLustreObject(const LustreLibrary& lib, int dirfd, const std::string& path, catalog::Attrs& attrs);

}  // namespace fathom::lustre_source
