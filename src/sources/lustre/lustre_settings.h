// lustre_settings.h — the Lustre source's settings ("lustre.*" keys of SourceOptions).
//
// lustre.device      FSNAME-MDTxxxx, the MDT whose changelog is read (required)
// lustre.mount       the client mount point (the file system's root; the source checks it);
//                    event paths are MOUNT/fid2path-result (required)
// lustre.user        the changelog user (cl1, ...) whose records are cleared once
//                    acknowledged; without it the changelog is read but never cleared
// lustre.library     path or soname of liblustreapi (default: liblustreapi.so.1, then
//                    liblustreapi.so)
// lustre.cache-size  FID→path entries kept in the LRU cache (0: every lookup calls fid2path)
// Any other lustre.* key is an error. Plain values, no threads.
#pragma once

#include <cstddef>
#include <string>

#include "fathom/source.h"
#include "fathom/status.h"

namespace fathom::lustre_source {

// The default cache size: large enough that a metadata-heavy job's working set of
// directories stays cached (see bench/lustre_source_benchmark.cpp for the figures).
inline constexpr size_t kDefaultCacheSize = 65536;

struct LustreSettings {
  std::string device;   // "testfs-MDT0000"
  std::string fsname;   // "testfs"
  int mdt = 0;          // 0 for MDT0000
  std::string mount;    // absolute, no trailing slash (except "/")
  std::string user;     // "" when records are never cleared
  std::string library;  // "" for the default sonames
  size_t cache_size = kDefaultCacheSize;
};

Result<LustreSettings> ParseLustreSettings(const SourceOptions& options);

}  // namespace fathom::lustre_source
