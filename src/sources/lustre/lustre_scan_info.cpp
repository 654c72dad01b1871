#include "sources/lustre/lustre_scan_info.h"

namespace fathom::lustre_source {

bool OnLustre(const LustreLibrary& lib, const std::string& path) { return lib.SearchFsname(path).ok(); }

void DescribeLustreObject(const LustreLibrary& lib, int dirfd, const std::string& path, catalog::Attrs& attrs) {
  Result<lustre::Fid> fid = lib.Path2Fid(path);
  if (!fid.ok()) return;
  catalog::LustreInfo info;
  info.fid = lustre::FormatFid(*fid);
  if (Result<int> mdt = lib.MdtIndex(dirfd, *fid); mdt.ok() && *mdt >= 0) {
    info.mdt_index = static_cast<uint32_t>(*mdt);
  }
  attrs.lustre = std::move(info);
}

}  // namespace fathom::lustre_source
