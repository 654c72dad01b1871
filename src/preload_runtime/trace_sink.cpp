// trace_sink.cpp — the trace file's creation and appends, by system calls.
#include "preload_runtime/trace_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace fathom::preload_runtime {
namespace {

namespace f = iotrace::format;

// Above the numbers a program's opens take (the lowest free).
constexpr int kHighDescriptor = 700;

int OpenAt(const char* path, int flags, int mode) {
  return static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

void Close(int fd) { syscall(SYS_close, fd); }

bool Identity(int fd, uint64_t* dev, uint64_t* ino) {
  struct stat st;
  if (syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH) != 0) return false;
  *dev = st.st_dev;
  *ino = st.st_ino;
  return true;
}

}  // namespace

bool TraceSink::Create(const char* path, const uint8_t* header, size_t size) {
  if (strlen(path) >= sizeof(path_)) {
    errno = ENAMETOOLONG;
    return false;
  }
  strcpy(path_, path);
  const int fd = OpenAt(path_, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool written = syscall(SYS_write, fd, header, size) == static_cast<long>(size) && Identity(fd, &dev_, &ino_);
  const int saved = errno;
  Close(fd);
  errno = saved;
  return written;
}

void TraceSink::Header(uint8_t* header, const uint8_t* payload, size_t size) const {
  f::PutU32(header, magic_);
  f::PutU32(header + 4, static_cast<uint32_t>(size));
  f::PutU32(header + 8, f::Crc32(payload, size));
}

bool TraceSink::Append(const iovec* parts, int count) {
  int fd = OpenAt(path_, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
  if (fd < 0) return false;
  const int high = static_cast<int>(syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, kHighDescriptor));
  if (high >= 0) {
    Close(fd);
    fd = high;
  }
  uint64_t dev = 0, ino = 0;
  if (!Identity(fd, &dev, &ino) || dev != dev_ || ino != ino_) return false;  // not ours: never close or write it
  bool ok = true;
  int done = 0;
  while (done < count && ok) {
    const int batch = count - done < IOV_MAX ? count - done : IOV_MAX;
    const long n = syscall(SYS_writev, fd, parts + done, batch);
    if (n < 0 && errno == EINTR) continue;
    size_t expected = 0;
    for (int i = 0; i < batch; ++i) expected += parts[done + i].iov_len;
    ok = n >= 0 && static_cast<size_t>(n) == expected;
    done += batch;
  }
  Close(fd);
  return ok;
}

void TraceSink::WriteFrame(const uint8_t* payload, size_t size) {
  uint8_t header[kFrameHeaderSize];
  Header(header, payload, size);
  iovec parts[2] = {{header, sizeof(header)}, {const_cast<uint8_t*>(payload), size}};
  Lock();
  Append(parts, 2);
  Unlock();
}

}  // namespace fathom::preload_runtime
