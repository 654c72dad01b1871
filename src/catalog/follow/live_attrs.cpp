#include "catalog/follow/live_attrs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace fathom::catalog {
namespace {


bool Gone(int err) { return err == ENOENT || err == ENOTDIR || err == ESTALE; }

}  // namespace

Result<std::optional<Attrs>> ReadLiveAttrs(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (Gone(errno)) return std::optional<Attrs>();
    return Status::FromErrno(errno, "lstat " + path);
  }
  Attrs a = AttrsFromStat(st);
  if (S_ISLNK(st.st_mode)) {
    std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    for (;;) {
      const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
      if (n < 0) {
        if (Gone(errno)) return std::optional<Attrs>();
        return Status::FromErrno(errno, "readlink " + path);
      }
      if (static_cast<size_t>(n) < target.size()) {
        target.resize(static_cast<size_t>(n));
        break;
      }
      target.resize(target.size() * 2);
    }
    a.symlink = std::move(target);
  }
  return std::optional<Attrs>(std::move(a));
}

}  // namespace fathom::catalog
