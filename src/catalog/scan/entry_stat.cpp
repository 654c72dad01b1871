#include "catalog/scan/entry_stat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace fathom::scan {
namespace {

// A symbolic link's target; `size_hint` is its st_size (0 on file systems that report none).
int ReadLink(int dirfd, const std::string& name, size_t size_hint, std::string& out) {
  std::vector<char> buf(size_hint > 0 ? size_hint + 1 : 256);
  for (;;) {
    ssize_t n = readlinkat(dirfd, name.c_str(), buf.data(), buf.size());
    if (n < 0) return errno;
    if (static_cast<size_t>(n) < buf.size()) {
      out.assign(buf.data(), static_cast<size_t>(n));
      return 0;
    }
    buf.resize(buf.size() * 2);  // the target grew (or the size was not reported)
  }
}

}  // namespace


int StatEntry(int dirfd, const std::string& name, catalog::Attrs& out) {
  struct stat st;
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno;
  out = catalog::AttrsFromStat(st);
  if (S_ISLNK(st.st_mode)) {
    return ReadLink(dirfd, name, static_cast<size_t>(st.st_size), out.symlink);
  }
  return 0;
}

}  // namespace fathom::scan
