// wrap_meta.cpp — metadata calls: the stat family (the calls glibc 2.33 and later make and
// the __xstat family of older binaries), directories, names, truncate, and the working
// directory relative paths are resolved against.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/wrap_helpers.h"

using namespace fathom::iotrace::preload;
namespace f = fathom::iotrace::format;

namespace {

// A stat of `path` (relative to dirfd) that filled `st`.
template <typename Stat, typename Fn>
int StatPath(uint8_t op, int dirfd, const char* path, Stat* st, Fn call) {
  if (!Active()) return call();
  const uint64_t t0 = Now();
  const int r = call();
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  if (r == 0) {
    StatOp(op, dirfd, path, st->st_dev, st->st_ino, t0, t1);
  } else {
    PathOp(op, dirfd, path, 0, -1, e.value(), t0, t1);
  }
  return r;
}

template <typename Fn>
int StatFd(uint8_t op, int fd, Fn call) {
  if (!Active()) return call();
  const uint64_t t0 = Now();
  const int r = call();
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdOp(op, fd, 0, Outcome(r), r < 0 ? e.value() : 0, t0, t1);
  return r;
}

bool EmptyPath(const char* path, int flags) {
  return (flags & AT_EMPTY_PATH) != 0 && path != nullptr && path[0] == '\0';
}

template <typename Fn>
int NameCall(uint8_t op, int dirfd, const char* path, uint64_t size, Fn call,
             int aux_dirfd = AT_FDCWD, const char* aux_path = nullptr) {
  if (!Active()) return call();
  const uint64_t t0 = Now();
  const int r = call();
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  const uint32_t aux = aux_path != nullptr ? NameObject(aux_dirfd, aux_path) : kNoObject;
  PathOp(op, dirfd, path, size, Outcome(r), r < 0 ? e.value() : 0, t0, t1, aux);
  return r;
}

// readdir and readdir64: an entry is a result of 1, the end 0.
template <typename Fn>
auto ReadDirectory(Fn fn, DIR* dir) {
  if (!Active()) return fn(dir);
  const uint64_t t0 = Now();
  auto* entry = fn(dir);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  FdOp(f::kReaddir, dirfd(dir), 0, entry != nullptr ? 1 : 0, 0, t0, t1);
  return entry;
}

// After chdir or fchdir returned `r`. The working directory is kept under the objects' lock:
// a signal handler's I/O while it is taken is not recorded (Busy), so that it never waits for
// a lock its own thread holds.
int Changed(int r) {
  if (r == 0) {
    KeepErrno e;
    Busy busy;
    RefreshWorkingDirectory();
  }
  return r;
}

using XstatFn = int (*)(int, const char*, struct stat*);
using FxstatFn = int (*)(int, int, struct stat*);
using FxstatatFn = int (*)(int, int, const char*, struct stat*, int);
FATHOM_REAL_TYPED(real_xstat, XstatFn, "__xstat", "GLIBC_2.2.5")
FATHOM_REAL_TYPED(real_lxstat, XstatFn, "__lxstat", "GLIBC_2.2.5")
FATHOM_REAL_TYPED(real_fxstat, FxstatFn, "__fxstat", "GLIBC_2.2.5")
FATHOM_REAL_TYPED(real_fxstatat, FxstatatFn, "__fxstatat", "GLIBC_2.4")
FATHOM_REAL_TYPED(real_xstat64, XstatFn, "__xstat64", "GLIBC_2.2.5")
FATHOM_REAL_TYPED(real_lxstat64, XstatFn, "__lxstat64", "GLIBC_2.2.5")
FATHOM_REAL_TYPED(real_fxstat64, FxstatFn, "__fxstat64", "GLIBC_2.2.5")
FATHOM_REAL_TYPED(real_fxstatat64, FxstatatFn, "__fxstatat64", "GLIBC_2.4")

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

int stat(const char* path, struct stat* st) {
  return StatPath(f::kStat, AT_FDCWD, path, st, [&] { return real::stat()(path, st); });
}
int stat64(const char* path, struct stat64* st) {
  return StatPath(f::kStat, AT_FDCWD, path, st, [&] { return real::stat64()(path, st); });
}
int lstat(const char* path, struct stat* st) {
  return StatPath(f::kLstat, AT_FDCWD, path, st, [&] { return real::lstat()(path, st); });
}
int lstat64(const char* path, struct stat64* st) {
  return StatPath(f::kLstat, AT_FDCWD, path, st, [&] { return real::lstat64()(path, st); });
}
int fstat(int fd, struct stat* st) {
  return StatFd(f::kFstat, fd, [&] { return real::fstat()(fd, st); });
}
int fstat64(int fd, struct stat64* st) {
  return StatFd(f::kFstat, fd, [&] { return real::fstat64()(fd, st); });
}
int fstatat(int dirfd, const char* path, struct stat* st, int flags) {
  auto call = [&] { return real::fstatat()(dirfd, path, st, flags); };
  if (EmptyPath(path, flags)) return StatFd(f::kFstatat, dirfd, call);
  return StatPath(f::kFstatat, dirfd, path, st, call);
}
int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) {
  auto call = [&] { return real::fstatat64()(dirfd, path, st, flags); };
  if (EmptyPath(path, flags)) return StatFd(f::kFstatat, dirfd, call);
  return StatPath(f::kFstatat, dirfd, path, st, call);
}

int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx) {
  const auto fn = real::statx();
  if (EmptyPath(path, flags)) {
    return StatFd(f::kStatx, dirfd, [&] { return fn(dirfd, path, flags, mask, stx); });
  }
  if (!Active()) return fn(dirfd, path, flags, mask, stx);
  const uint64_t t0 = Now();
  const int r = fn(dirfd, path, flags, mask, stx);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  if (r == 0 && (stx->stx_mask & STATX_INO) != 0) {
    StatOp(f::kStatx, dirfd, path, makedev(stx->stx_dev_major, stx->stx_dev_minor), stx->stx_ino, t0, t1);
  } else {
    PathOp(f::kStatx, dirfd, path, 0, Outcome(r), r < 0 ? e.value() : 0, t0, t1);
  }
  return r;
}

// The stat calls of binaries built against glibc before 2.33.
int __xstat(int version, const char* path, struct stat* st) {
  return StatPath(f::kStat, AT_FDCWD, path, st, [&] { return real_xstat()(version, path, st); });
}
int __xstat64(int version, const char* path, struct stat* st) {
  return StatPath(f::kStat, AT_FDCWD, path, st, [&] { return real_xstat64()(version, path, st); });
}
int __lxstat(int version, const char* path, struct stat* st) {
  return StatPath(f::kLstat, AT_FDCWD, path, st, [&] { return real_lxstat()(version, path, st); });
}
int __lxstat64(int version, const char* path, struct stat* st) {
  return StatPath(f::kLstat, AT_FDCWD, path, st, [&] { return real_lxstat64()(version, path, st); });
}
int __fxstat(int version, int fd, struct stat* st) {
  return StatFd(f::kFstat, fd, [&] { return real_fxstat()(version, fd, st); });
}
int __fxstat64(int version, int fd, struct stat* st) {
  return StatFd(f::kFstat, fd, [&] { return real_fxstat64()(version, fd, st); });
}
int __fxstatat(int version, int dirfd, const char* path, struct stat* st, int flags) {
  auto call = [&] { return real_fxstatat()(version, dirfd, path, st, flags); };
  if (EmptyPath(path, flags)) return StatFd(f::kFstatat, dirfd, call);
  return StatPath(f::kFstatat, dirfd, path, st, call);
}
int __fxstatat64(int version, int dirfd, const char* path, struct stat* st, int flags) {
  auto call = [&] { return real_fxstatat64()(version, dirfd, path, st, flags); };
  if (EmptyPath(path, flags)) return StatFd(f::kFstatat, dirfd, call);
  return StatPath(f::kFstatat, dirfd, path, st, call);
}

int mkdir(const char* path, mode_t mode) {
  return NameCall(f::kMkdir, AT_FDCWD, path, mode, [&] { return real::mkdir()(path, mode); });
}
int mkdirat(int dirfd, const char* path, mode_t mode) {
  return NameCall(f::kMkdir, dirfd, path, mode, [&] { return real::mkdirat()(dirfd, path, mode); });
}
int rmdir(const char* path) {
  return NameCall(f::kRmdir, AT_FDCWD, path, 0, [&] { return real::rmdir()(path); });
}
int unlink(const char* path) {
  return NameCall(f::kUnlink, AT_FDCWD, path, 0, [&] { return real::unlink()(path); });
}
int unlinkat(int dirfd, const char* path, int flags) {
  const uint8_t op = (flags & AT_REMOVEDIR) != 0 ? f::kRmdir : f::kUnlink;
  return NameCall(op, dirfd, path, 0, [&] { return real::unlinkat()(dirfd, path, flags); });
}
int rename(const char* from, const char* to) {
  return NameCall(f::kRename, AT_FDCWD, from, 0, [&] { return real::rename()(from, to); }, AT_FDCWD, to);
}
int renameat(int from_dir, const char* from, int to_dir, const char* to) {
  return NameCall(f::kRename, from_dir, from, 0, [&] { return real::renameat()(from_dir, from, to_dir, to); },
                  to_dir, to);
}
int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) {
  return NameCall(f::kRename, from_dir, from, 0,
                  [&] { return real::renameat2()(from_dir, from, to_dir, to, flags); }, to_dir, to);
}
int link(const char* from, const char* to) {
  return NameCall(f::kLink, AT_FDCWD, to, 0, [&] { return real::link()(from, to); }, AT_FDCWD, from);
}
int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  return NameCall(f::kLink, to_dir, to, 0, [&] { return real::linkat()(from_dir, from, to_dir, to, flags); },
                  from_dir, from);
}
// The link is the target; the text it holds is the second path, as given.
int symlink(const char* text, const char* path) {
  return NameCall(f::kSymlink, AT_FDCWD, path, 0, [&] { return real::symlink()(text, path); }, AT_FDCWD, text);
}
int symlinkat(const char* text, int dirfd, const char* path) {
  return NameCall(f::kSymlink, dirfd, path, 0, [&] { return real::symlinkat()(text, dirfd, path); },
                  AT_FDCWD, text);
}
int truncate(const char* path, off_t length) {
  return NameCall(f::kTruncate, AT_FDCWD, path, static_cast<uint64_t>(length),
                  [&] { return real::truncate()(path, length); });
}
int truncate64(const char* path, off64_t length) {
  return NameCall(f::kTruncate, AT_FDCWD, path, static_cast<uint64_t>(length),
                  [&] { return real::truncate64()(path, length); });
}

DIR* opendir(const char* path) {
  const auto fn = real::opendir();
  if (!Active()) return fn(path);
  const uint64_t t0 = Now();
  DIR* dir = fn(path);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  if (dir != nullptr) {
    RecordOn(f::kOpendir, OpenedFd(dirfd(dir), AT_FDCWD, path, O_RDONLY | O_DIRECTORY), 0, 0, 0, t0, t1);
  } else {
    RecordOn(f::kOpendir, NameObject(AT_FDCWD, path), 0, -1, e.value(), t0, t1);
  }
  return dir;
}

struct dirent* readdir(DIR* dir) { return ReadDirectory(real::readdir(), dir); }
struct dirent64* readdir64(DIR* dir) { return ReadDirectory(real::readdir64(), dir); }

int closedir(DIR* dir) {
  ClosedFd(dirfd(dir));
  return real::closedir()(dir);
}

int chdir(const char* path) { return Changed(real::chdir()(path)); }
int fchdir(int fd) { return Changed(real::fchdir()(fd)); }

}  // extern "C"
#pragma GCC visibility pop
