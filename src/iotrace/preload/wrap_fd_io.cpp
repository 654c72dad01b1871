// wrap_fd_io.cpp — opening, reading, writing, seeking, syncing and closing descriptors.
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/wrap_helpers.h"

using namespace fathom::iotrace::preload;
namespace f = fathom::iotrace::format;

namespace {

// The mode argument of an open that creates, from its variable arguments.
mode_t ModeOf(int flags, va_list ap) {
  const bool creates = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
  return creates ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

uint64_t Total(const struct iovec* iov, int count) {
  uint64_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  return total;
}

// Records an open (of any kind) that returned `fd`.
int Opened(uint8_t op, int dirfd, const char* path, int flags, int fd, uint64_t t0, uint64_t t1) {
  KeepErrno e;
  Busy busy;
  if (fd >= 0) {
    RecordOn(op, OpenedFd(fd, dirfd, path, flags), static_cast<uint64_t>(flags), 0, 0, t0, t1);
  } else {
    RecordOn(op, NameObject(dirfd, path), static_cast<uint64_t>(flags), -1, e.value(), t0, t1);
  }
  return fd;
}

template <typename Fn>
int OpenAt(uint8_t op, Fn fn, int dirfd, const char* path, int flags, mode_t mode) {
  if (!Active()) return fn(dirfd, path, flags, mode);
  const uint64_t t0 = Now();
  const int fd = fn(dirfd, path, flags, mode);
  return Opened(op, dirfd, path, flags, fd, t0, Now());
}

template <typename Fn>
int OpenPath(uint8_t op, Fn fn, const char* path, int flags, mode_t mode) {
  if (!Active()) return fn(path, flags, mode);
  const uint64_t t0 = Now();
  const int fd = fn(path, flags, mode);
  return Opened(op, AT_FDCWD, path, flags, fd, t0, Now());
}

template <typename Fn, typename... A>
ssize_t Data(uint8_t op, Fn fn, int fd, uint64_t size, A... args) {
  if (!Active()) return fn(fd, args...);
  const uint64_t t0 = Now();
  const ssize_t r = fn(fd, args...);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdData(op, fd, size, r, r < 0 ? e.value() : 0, t0, t1);
  return r;
}

template <typename Fn, typename... A>
ssize_t DataAt(uint8_t op, Fn fn, int fd, uint64_t size, off_t offset, A... args) {
  if (!Active()) return fn(fd, args..., offset);
  const uint64_t t0 = Now();
  const ssize_t r = fn(fd, args..., offset);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdDataAt(op, fd, offset, size, r, r < 0 ? e.value() : 0, t0, t1);
  return r;
}

template <typename Fn, typename... A>
int FdCall(uint8_t op, uint64_t size, Fn fn, int fd, A... args) {
  if (!Active()) return fn(fd, args...);
  const uint64_t t0 = Now();
  const int r = fn(fd, args...);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdOp(op, fd, size, Outcome(r), r < 0 ? e.value() : 0, t0, t1);
  return r;
}

template <typename Fn>
off_t Seek(Fn fn, int fd, off_t offset, int whence) {
  if (!Active()) return fn(fd, offset, whence);
  const uint64_t t0 = Now();
  const off_t r = fn(fd, offset, whence);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  if (r >= 0) SetFdOffset(fd, r);
  // The new position as the offset: seeks that step through a file compress into one run.
  FdDataAt(f::kLseek, fd, r >= 0 ? r : offset, 0, Outcome(r), r < 0 ? e.value() : 0, t0, t1);
  return r;
}

int Dup(int from, int to, uint64_t t0, uint64_t t1) {
  KeepErrno e;
  Busy busy;
  if (to >= 0) DupFd(from, to);
  FdOp(f::kDup, from, 0, Outcome(to), to < 0 ? e.value() : 0, t0, t1);
  return to;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeOf(flags, ap);
  va_end(ap);
  return OpenPath(f::kOpen, real::open(), path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeOf(flags, ap);
  va_end(ap);
  return OpenPath(f::kOpen, real::open64(), path, flags, mode);
}

int __open_2(const char* path, int flags) { return OpenPath(f::kOpen, real::open(), path, flags, 0); }
int __open64_2(const char* path, int flags) { return OpenPath(f::kOpen, real::open64(), path, flags, 0); }

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeOf(flags, ap);
  va_end(ap);
  return OpenAt(f::kOpen, real::openat(), dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeOf(flags, ap);
  va_end(ap);
  return OpenAt(f::kOpen, real::openat64(), dirfd, path, flags, mode);
}

int __openat_2(int dirfd, const char* path, int flags) {
  return OpenAt(f::kOpen, real::openat(), dirfd, path, flags, 0);
}
int __openat64_2(int dirfd, const char* path, int flags) {
  return OpenAt(f::kOpen, real::openat64(), dirfd, path, flags, 0);
}

int creat(const char* path, mode_t mode) {
  return OpenPath(f::kCreat, real::open(), path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
int creat64(const char* path, mode_t mode) {
  return OpenPath(f::kCreat, real::open64(), path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int close(int fd) {
  return CloseThrough(f::kClose, fd, [&] { return real::close()(fd); });
}

int close_range(unsigned first, unsigned last, int flags) {
  const int r = real::close_range()(first, last, flags);
  if (r == 0 && (flags & CLOSE_RANGE_CLOEXEC) == 0) ClosedFdRange(first, last);
  return r;
}

void closefrom(int lowest) {
  real::closefrom()(lowest);
  if (lowest >= 0) ClosedFdRange(static_cast<unsigned>(lowest), ~0u);
}

ssize_t read(int fd, void* buf, size_t n) { return Data(f::kRead, real::read(), fd, n, buf, n); }
ssize_t __read_chk(int fd, void* buf, size_t n, size_t) {
  return Data(f::kRead, real::read(), fd, n, buf, n);
}
ssize_t write(int fd, const void* buf, size_t n) {
  return Data(f::kWrite, real::write(), fd, n, buf, n);
}

ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  return DataAt(f::kPread, real::pread(), fd, n, offset, buf, n);
}
ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  return DataAt(f::kPread, real::pread64(), fd, n, offset, buf, n);
}
ssize_t __pread_chk(int fd, void* buf, size_t n, off_t offset, size_t) {
  return DataAt(f::kPread, real::pread(), fd, n, offset, buf, n);
}
ssize_t __pread64_chk(int fd, void* buf, size_t n, off64_t offset, size_t) {
  return DataAt(f::kPread, real::pread64(), fd, n, offset, buf, n);
}
ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  return DataAt(f::kPwrite, real::pwrite(), fd, n, offset, buf, n);
}
ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  return DataAt(f::kPwrite, real::pwrite64(), fd, n, offset, buf, n);
}

ssize_t readv(int fd, const struct iovec* iov, int count) {
  return Data(f::kReadv, real::readv(), fd, Total(iov, count), iov, count);
}
ssize_t writev(int fd, const struct iovec* iov, int count) {
  return Data(f::kWritev, real::writev(), fd, Total(iov, count), iov, count);
}
ssize_t preadv(int fd, const struct iovec* iov, int count, off_t offset) {
  return DataAt(f::kPreadv, real::preadv(), fd, Total(iov, count), offset, iov, count);
}
ssize_t preadv64(int fd, const struct iovec* iov, int count, off64_t offset) {
  return DataAt(f::kPreadv, real::preadv64(), fd, Total(iov, count), offset, iov, count);
}
ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  return DataAt(f::kPwritev, real::pwritev(), fd, Total(iov, count), offset, iov, count);
}
ssize_t pwritev64(int fd, const struct iovec* iov, int count, off64_t offset) {
  return DataAt(f::kPwritev, real::pwritev64(), fd, Total(iov, count), offset, iov, count);
}

// preadv2/pwritev2 with offset -1 use (and move) the descriptor's position.
}  // extern "C"
#pragma GCC visibility pop

namespace {

template <typename Fn>
ssize_t Vector2(uint8_t op, Fn fn, int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  if (offset == -1) return Data(op, fn, fd, Total(iov, count), iov, count, offset, flags);
  if (!Active()) return fn(fd, iov, count, offset, flags);
  const uint64_t t0 = Now();
  const ssize_t r = fn(fd, iov, count, offset, flags);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdDataAt(op, fd, offset, Total(iov, count), r, r < 0 ? e.value() : 0, t0, t1);
  return r;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

ssize_t preadv2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  return Vector2(f::kPreadv, real::preadv2(), fd, iov, count, offset, flags);
}
ssize_t pwritev2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  return Vector2(f::kPwritev, real::pwritev2(), fd, iov, count, offset, flags);
}
ssize_t preadv64v2(int fd, const struct iovec* iov, int count, off64_t offset, int flags) {
  return preadv2(fd, iov, count, offset, flags);
}
ssize_t pwritev64v2(int fd, const struct iovec* iov, int count, off64_t offset, int flags) {
  return pwritev2(fd, iov, count, offset, flags);
}

off_t lseek(int fd, off_t offset, int whence) { return Seek(real::lseek(), fd, offset, whence); }
off64_t lseek64(int fd, off64_t offset, int whence) { return Seek(real::lseek64(), fd, offset, whence); }

int fsync(int fd) { return FdCall(f::kFsync, 0, real::fsync(), fd); }
int fdatasync(int fd) { return FdCall(f::kFdatasync, 0, real::fdatasync(), fd); }
int ftruncate(int fd, off_t length) {
  return FdCall(f::kFtruncate, static_cast<uint64_t>(length), real::ftruncate(), fd, length);
}
int ftruncate64(int fd, off64_t length) {
  return FdCall(f::kFtruncate, static_cast<uint64_t>(length), real::ftruncate64(), fd, length);
}
int fallocate(int fd, int mode, off_t offset, off_t length) {
  return FdCall(f::kFallocate, static_cast<uint64_t>(length), real::fallocate(), fd, mode, offset, length);
}
int fallocate64(int fd, int mode, off64_t offset, off64_t length) {
  return FdCall(f::kFallocate, static_cast<uint64_t>(length), real::fallocate64(), fd, mode, offset, length);
}

int dup(int fd) {
  if (!Active()) {
    const int r = real::dup()(fd);
    if (r >= 0) DupFd(fd, r);
    return r;
  }
  const uint64_t t0 = Now();
  const int r = real::dup()(fd);
  return Dup(fd, r, t0, Now());
}
int dup2(int fd, int to) {
  if (!Active()) {
    const int r = real::dup2()(fd, to);
    if (r >= 0 && fd != to) DupFd(fd, r);
    return r;
  }
  const uint64_t t0 = Now();
  const int r = real::dup2()(fd, to);
  if (fd == to) return r;
  return Dup(fd, r, t0, Now());
}
int dup3(int fd, int to, int flags) {
  if (!Active()) {
    const int r = real::dup3()(fd, to, flags);
    if (r >= 0) DupFd(fd, r);
    return r;
  }
  const uint64_t t0 = Now();
  const int r = real::dup3()(fd, to, flags);
  return Dup(fd, r, t0, Now());
}

}  // extern "C"
#pragma GCC visibility pop

namespace {

template <typename Fn>
int Fcntl(Fn fn, int fd, int cmd, va_list ap) {
  void* arg = va_arg(ap, void*);
  const bool duplicates = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
  if (!duplicates || !Active()) {
    const int r = fn(fd, cmd, arg);
    if (duplicates && r >= 0) DupFd(fd, r);
    return r;
  }
  const uint64_t t0 = Now();
  const int r = fn(fd, cmd, arg);
  return Dup(fd, r, t0, Now());
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  const int r = Fcntl(real::fcntl(), fd, cmd, ap);
  va_end(ap);
  return r;
}
int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  const int r = Fcntl(real::fcntl64(), fd, cmd, ap);
  va_end(ap);
  return r;
}

void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
  const auto fn = real::mmap();
  if (fd < 0 || !Active()) return fn(address, length, protection, flags, fd, offset);
  const uint64_t t0 = Now();
  void* r = fn(address, length, protection, flags, fd, offset);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdDataAt(f::kMmap, fd, offset, length, r == MAP_FAILED ? -1 : 0, r == MAP_FAILED ? e.value() : 0, t0, t1);
  return r;
}
void* mmap64(void* address, size_t length, int protection, int flags, int fd, off64_t offset) {
  return mmap(address, length, protection, flags, fd, offset);
}

ssize_t copy_file_range(int in, off64_t* in_offset, int out, off64_t* out_offset, size_t n,
                        unsigned flags) {
  const auto fn = real::copy_file_range();
  if (!Active()) return fn(in, in_offset, out, out_offset, n, flags);
  uint32_t source;
  int64_t at;
  {
    Busy busy;
    source = LookFd(in).object;
    at = out_offset != nullptr ? *out_offset : LookFd(out).offset;
  }
  const uint64_t t0 = Now();
  const ssize_t r = fn(in, in_offset, out, out_offset, n, flags);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  if (r > 0 && in_offset == nullptr) AdvanceFd(in, r);
  if (r > 0 && out_offset == nullptr) AdvanceFd(out, r);
  RecordOn(f::kCopyFileRange, LookFd(out).object, n, r, r < 0 ? e.value() : 0, t0, t1, at, source);
  return r;
}

ssize_t sendfile(int out, int in, off_t* offset, size_t n) {
  const auto fn = real::sendfile();
  if (!Active()) return fn(out, in, offset, n);
  int64_t at;
  {
    Busy busy;
    at = offset != nullptr ? *offset : LookFd(in).offset;
  }
  const uint64_t t0 = Now();
  const ssize_t r = fn(out, in, offset, n);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  if (r > 0 && offset == nullptr) AdvanceFd(in, r);
  FdDataAt(f::kSendfile, in, at, n, r, r < 0 ? e.value() : 0, t0, t1);
  return r;
}
ssize_t sendfile64(int out, int in, off64_t* offset, size_t n) {
  return sendfile(out, in, reinterpret_cast<off_t*>(offset), n);
}

}  // extern "C"
#pragma GCC visibility pop
