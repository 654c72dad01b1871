#include <sys/stat.h>

#include "fathom/catalog.h"

namespace fathom::catalog {
namespace {

int64_t Nanoseconds(const timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

Attrs AttrsFromStat(const struct stat& st) {
  Attrs a;
  a.dev = st.st_dev;
  a.ino = st.st_ino;
  a.mode = st.st_mode;
  a.uid = st.st_uid;
  a.gid = st.st_gid;
  a.nlink = st.st_nlink;
  a.size = st.st_size;
  a.blocks = st.st_blocks;
  a.atime_ns = Nanoseconds(st.st_atim);
  a.mtime_ns = Nanoseconds(st.st_mtim);
  a.ctime_ns = Nanoseconds(st.st_ctim);
  return a;
}

}  // namespace fathom::catalog
