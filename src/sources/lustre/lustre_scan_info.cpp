#include "sources/lustre/lustre_scan_info.h"

#include <fcntl.h>
#include <unistd.h>

#include "fathom/event.h"

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

Result<std::shared_ptr<LustreView>> LustreView::ForRoots(const std::string& library,
                                                         const std::vector<std::string>& roots) {
  Result<std::unique_ptr<LustreLibrary>> loaded = LustreLibrary::Load(library);
  if (!loaded.ok()) {
    if (!library.empty()) return loaded.status();
    return std::shared_ptr<LustreView>();
  }
  std::shared_ptr<LustreView> view(new LustreView(std::move(loaded).value()));
  for (const std::string& root : roots) {
    if (!OnLustre(*view->lib_, root)) continue;
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) view->roots_.emplace_back(root, fd);
  }
  if (view->roots_.empty()) return std::shared_ptr<LustreView>();
  return view;
}

LustreView::~LustreView() {
  for (const auto& root : roots_) ::close(root.second);
}

void LustreView::Describe(int dirfd, const std::string& path, catalog::Attrs& attrs) const {
  if (dirfd < 0) {
    for (const auto& [root, fd] : roots_) {
      if (PathUnder(path, root)) dirfd = fd;
    }
    if (dirfd < 0) return;
  }
  DescribeLustreObject(*lib_, dirfd, path, attrs);
}

std::function<void(int dirfd, const std::string& path, catalog::Attrs& attrs)> DescribeHook(
    const std::shared_ptr<LustreView>& view) {
  if (!view) return nullptr;
  return [view](int dirfd, const std::string& path, catalog::Attrs& attrs) { view->Describe(dirfd, path, attrs); };
}

}  // namespace fathom::lustre_source
