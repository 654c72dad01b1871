#include "sources/lustre/lustre_scan_info.h"

#include <sys/stat.h>

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
  // A regular file's layout (the library's llapi_layout_* calls are optional).
  if ((attrs.mode & S_IFMT) == S_IFREG) {
    if (Result<LustreLibrary::FileLayout> layout = lib.Layout(path); layout.ok()) {
      info.stripe_count = static_cast<uint32_t>(layout->stripe_count);
      info.stripe_size = layout->stripe_size;
      info.pool = std::move(layout->pool);
      info.osts = std::move(layout->osts);
    }
  }
  attrs.lustre = std::move(info);
}

}  // namespace fathom::lustre_source
