// lustre_scan_info.h — Lustre's view of the objects a scan reads, for the catalog's Lustre
// columns, through liblustreapi: the FID (llapi_path2fid) and the MDT holding it
// (llapi_get_mdt_index_by_fid, optional in the library). Layouts (stripe count and size,
// pool, OST indexes) are not read: those columns stay empty.
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
// system, for the MDT query); leaves `attrs` as they are when the library cannot say (not
// Lustre, gone since it was listed).
void DescribeLustreObject(const LustreLibrary& lib, int dirfd, const std::string& path, catalog::Attrs& attrs);

}  // namespace fathom::lustre_source
