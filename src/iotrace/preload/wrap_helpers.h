// wrap_helpers.h — what every wrapper does around the real call: time it, keep errno, and
// record the operation against the right object.
#pragma once

#include <errno.h>

#include "iotrace/preload/tracer.h"

namespace fathom::iotrace::preload {

// Keeps the real call's errno through the recording, whatever the recording calls.
class KeepErrno {
 public:
  KeepErrno() : saved_(errno) {}
  ~KeepErrno() { errno = saved_; }
  int value() const { return saved_; }
  KeepErrno(const KeepErrno&) = delete;
  KeepErrno& operator=(const KeepErrno&) = delete;

 private:
  int saved_;
};

// Data moved at the descriptor's position, which then advances by `result`.
void FdData(uint8_t op, int fd, uint64_t size, int64_t result, int err, uint64_t start, uint64_t end);
// Data moved at an explicit offset; the descriptor's position does not move.
void FdDataAt(uint8_t op, int fd, int64_t offset, uint64_t size, int64_t result, int err,
              uint64_t start, uint64_t end);
// An operation on a descriptor's file, without an offset (fsync, fstat, close...).
void FdOp(uint8_t op, int fd, uint64_t size, int64_t result, int err, uint64_t start, uint64_t end);
// An operation on a path (relative to dirfd), recorded against the name; `aux` is a second
// path's name (rename, link, symlink) or kNoObject.
void PathOp(uint8_t op, int dirfd, const char* path, uint64_t size, int64_t result, int err,
            uint64_t start, uint64_t end, uint32_t aux = kNoObject);
// A successful stat: recorded against the file (dev, ino) it found, named by `path`.
void StatOp(uint8_t op, int dirfd, const char* path, uint64_t dev, uint64_t ino, uint64_t start,
            uint64_t end);
// 0 for success, -1 for failure: what metadata calls return, so that runs of them compress.
inline int64_t Outcome(long r) { return r < 0 ? -1 : 0; }

// Closes `fd` through `call` (close, fclose...): the file is looked up before the call, the
// descriptor forgotten after it, and the close recorded as `op`.
template <typename Call>
int CloseThrough(uint8_t op, int fd, Call call) {
  if (!Active()) {
    const int r = call();
    ClosedFd(fd);
    return r;
  }
  uint32_t object;
  {
    Busy busy;
    object = LookFd(fd).object;
  }
  const uint64_t t0 = Now();
  const int r = call();
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  ClosedFd(fd);
  RecordOn(op, object, 0, Outcome(r), r < 0 ? e.value() : 0, t0, t1);
  return r;
}

}  // namespace fathom::iotrace::preload
