// wrap_helpers.cpp — recording an operation against its object.
#include "iotrace/preload/wrap_helpers.h"

#include <limits.h>

namespace fathom::iotrace::preload {

void FdData(uint8_t op, int fd, uint64_t size, int64_t result, int err, uint64_t start, uint64_t end) {
  const FdView view = LookFd(fd);
  if (view.object == kNoObject) return;
  Operation o;
  o.op = op;
  o.target = view.object;
  o.has_offset = true;
  o.offset = view.offset;
  o.size = size;
  o.result = result;
  o.err = err;
  o.start = start;
  o.end = end;
  if (result > 0) AdvanceFd(fd, result);
  Record(o);
}

void FdDataAt(uint8_t op, int fd, int64_t offset, uint64_t size, int64_t result, int err,
              uint64_t start, uint64_t end) {
  const FdView view = LookFd(fd);
  if (view.object == kNoObject) return;
  Operation o;
  o.op = op;
  o.target = view.object;
  o.has_offset = true;
  o.offset = offset;
  o.size = size;
  o.result = result;
  o.err = err;
  o.start = start;
  o.end = end;
  Record(o);
}

void FdOp(uint8_t op, int fd, uint64_t size, int64_t result, int err, uint64_t start, uint64_t end) {
  const FdView view = LookFd(fd);
  if (view.object == kNoObject) return;
  Operation o;
  o.op = op;
  o.target = view.object;
  o.size = size;
  o.result = result;
  o.err = err;
  o.start = start;
  o.end = end;
  Record(o);
}

void PathOp(uint8_t op, int dirfd, const char* path, uint64_t size, int64_t result, int err,
            uint64_t start, uint64_t end, uint32_t aux) {
  Operation o;
  o.op = op;
  o.target = NameObject(dirfd, path);
  o.aux = aux;
  o.size = size;
  o.result = result;
  o.err = err;
  o.start = start;
  o.end = end;
  Record(o);
}

void StatOp(uint8_t op, int dirfd, const char* path, uint64_t dev, uint64_t ino, uint64_t start,
            uint64_t end) {
  char absolute[PATH_MAX];
  const bool known = AbsolutePath(dirfd, path, absolute, sizeof(absolute));
  Operation o;
  o.op = op;
  o.target = FileObject(dev, ino, known ? absolute : path);
  o.start = start;
  o.end = end;
  Record(o);
}

}  // namespace fathom::iotrace::preload
