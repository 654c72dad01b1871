#include "catalog/report/entry_filter.h"

#include <sys/stat.h>

#include <string>

namespace fathom::catalog::report {

bool EntryFilter::Matches(const Attrs& attrs) const {
  if (uid && attrs.uid != *uid) return false;
  if (gid && attrs.gid != *gid) return false;
  if (type && (attrs.mode & S_IFMT) != *type) return false;
  return true;
}

Result<uint32_t> ParseFileType(std::string_view letter) {
  if (letter == "f") return uint32_t{S_IFREG};
  if (letter == "d") return uint32_t{S_IFDIR};
  if (letter == "l") return uint32_t{S_IFLNK};
  if (letter == "b") return uint32_t{S_IFBLK};
  if (letter == "c") return uint32_t{S_IFCHR};
  if (letter == "p") return uint32_t{S_IFIFO};
  if (letter == "s") return uint32_t{S_IFSOCK};
  return Status::Error("unknown type '" + std::string(letter) +
                       "': use f (file), d (directory), l (symlink), b, c, p or s");
}

const char* TypeName(uint32_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    case S_IFCHR: return "chr";
    case S_IFBLK: return "blk";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "sock";
    default: return "?";
  }
}

}  // namespace fathom::catalog::report
