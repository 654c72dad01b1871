// wrap_helpers.cpp — recording an operation against its object.
#include "iotrace/preload/wrap_helpers.h"

#include <limits.h>

namespace fathom::iotrace::preload {

void FdData(uint8_t op, int fd, uint64_t size, int64_t result, int err, uint64_t start, uint64_t end) {
  const FdView view = LookFd(fd);
  if (view.object == kNoObject) return;
  if (result > 0) AdvanceFd(fd, result);
  RecordOn(op, view.object, size, result, err, start, end, view.offset);
}

void FdDataAt(uint8_t op, int fd, int64_t offset, uint64_t size, int64_t result, int err,
              uint64_t start, uint64_t end) {
  RecordOn(op, LookFd(fd).object, size, result, err, start, end, offset);
}

void FdOp(uint8_t op, int fd, uint64_t size, int64_t result, int err, uint64_t start, uint64_t end) {
  RecordOn(op, LookFd(fd).object, size, result, err, start, end);
}

void PathOp(uint8_t op, int dirfd, const char* path, uint64_t size, int64_t result, int err,
            uint64_t start, uint64_t end, uint32_t aux) {
  RecordOn(op, NameObject(dirfd, path), size, result, err, start, end, std::nullopt, aux);
}

void StatOp(uint8_t op, int dirfd, const char* path, uint64_t dev, uint64_t ino, uint64_t start,
            uint64_t end) {
  char absolute[PATH_MAX];
  const bool known = AbsolutePath(dirfd, path, absolute, sizeof(absolute));
  RecordOn(op, FileObject(dev, ino, known ? absolute : path), 0, 0, 0, start, end);
}

}  // namespace fathom::iotrace::preload
