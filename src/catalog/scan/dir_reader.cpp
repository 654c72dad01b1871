#include "catalog/scan/dir_reader.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace fathom::scan {
namespace {

// The kernel's struct linux_dirent64 layout (glibc 2.36 has no getdents64 declaration).
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

bool IsDotOrDotDot(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

}  // namespace

DirReader::DirReader(int fd, size_t buffer_bytes) : fd_(fd), buf_(buffer_bytes) {}

Result<size_t> DirReader::Next(std::vector<std::string>& names, size_t max) {
  size_t added = 0;
  while (added < max) {
    if (pos_ >= end_) {
      if (eof_) break;
      long n = syscall(SYS_getdents64, fd_, buf_.data(), buf_.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::FromErrno(errno, "getdents64");
      }
      if (n == 0) {
        eof_ = true;
        break;
      }
      pos_ = 0;
      end_ = static_cast<size_t>(n);
    }
    auto* d = reinterpret_cast<const LinuxDirent64*>(buf_.data() + pos_);
    pos_ += d->d_reclen;
    if (IsDotOrDotDot(d->d_name)) continue;
    names.emplace_back(d->d_name, std::strlen(d->d_name));
    ++added;
  }
  return added;
}

}  // namespace fathom::scan
