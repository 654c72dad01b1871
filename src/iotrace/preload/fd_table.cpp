// fd_table.cpp — what each descriptor reads and writes, and where it is.
//
// One slot per descriptor number (below kMaxFds; higher ones are looked up with fstat each
// time and have no tracked offset). A descriptor the tracer did not see opened (inherited,
// or made by socket, pipe...) is looked at once with fstat: a regular file or a block device
// becomes a file object, at the offset the kernel gives; anything else is remembered as not
// a file. Positions are kept by the tracer as the kernel keeps them: dup'ed descriptors share
// one (an open file description), read and write advance it, lseek sets it.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/tracer.h"

namespace fathom::iotrace::preload {
namespace {

constexpr int kMaxFds = 65536;
constexpr uint32_t kNotAFile = 0xffffffffu;
constexpr uint32_t kDescriptions = 16384;

struct FdSlot {
  uint32_t object;       // 0: not looked at yet; kNotAFile; else the file
  uint32_t description;  // index into g_descriptions (0: none)
  int64_t stdio_offset;
};
struct Description {
  std::atomic<int64_t> offset;
  uint32_t refs;
};

SpinLock g_lock;
FdSlot g_fds[kMaxFds];
Description g_descriptions[kDescriptions];
uint32_t g_free_hint = 1;

bool InTable(int fd) { return fd >= 0 && fd < kMaxFds; }

// A new description at `offset`; 0 if none is free. Called with g_lock held.
uint32_t NewDescription(int64_t offset) {
  for (uint32_t i = 0; i < kDescriptions - 1; ++i) {
    const uint32_t d = 1 + (g_free_hint - 1 + i) % (kDescriptions - 1);
    if (g_descriptions[d].refs == 0) {
      g_descriptions[d].refs = 1;
      g_descriptions[d].offset.store(offset, std::memory_order_relaxed);
      g_free_hint = d + 1 < kDescriptions ? d + 1 : 1;
      return d;
    }
  }
  return 0;
}

void DropSlot(FdSlot& slot) {
  if (slot.description != 0 && --g_descriptions[slot.description].refs == 0) {
    g_free_hint = slot.description;
  }
  slot = {};
}

// Looks at a descriptor opened outside the tracer.
uint32_t Discover(int fd, struct stat* st) {
  if (real::fstat()(fd, st) != 0) return kNotAFile;
  if (!S_ISREG(st->st_mode) && !S_ISBLK(st->st_mode) && !S_ISDIR(st->st_mode)) return kNotAFile;
  char link[64];
  char path[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t length = readlink(link, path, sizeof(path) - 1);
  path[length > 0 ? length : 0] = '\0';
  return FileObject(st->st_dev, st->st_ino, length > 0 ? path : nullptr);
}

}  // namespace

FdView LookFd(int fd) {
  if (!InTable(fd)) {
    struct stat st;
    const uint32_t object = fd >= 0 ? Discover(fd, &st) : kNotAFile;
    return {object == kNotAFile ? kNoObject : object, 0};
  }
  FdSlot& slot = g_fds[fd];
  uint32_t object = __atomic_load_n(&slot.object, __ATOMIC_ACQUIRE);
  if (object == 0) {
    struct stat st;
    object = Discover(fd, &st);
    const int64_t offset = object == kNotAFile ? 0 : real::lseek()(fd, 0, SEEK_CUR);
    Hold hold(g_lock);
    if (slot.object == 0) {
      slot.description = object == kNotAFile ? 0 : NewDescription(offset < 0 ? 0 : offset);
      slot.stdio_offset = offset < 0 ? 0 : offset;
      __atomic_store_n(&slot.object, object, __ATOMIC_RELEASE);
    }
    object = slot.object;
  }
  if (object == kNotAFile) return {};
  const uint32_t d = slot.description;
  return {object, d == 0 ? 0 : g_descriptions[d].offset.load(std::memory_order_relaxed)};
}

void AdvanceFd(int fd, int64_t bytes) {
  if (!InTable(fd) || bytes <= 0) return;
  const uint32_t d = g_fds[fd].description;
  if (d != 0) g_descriptions[d].offset.fetch_add(bytes, std::memory_order_relaxed);
}

void SetFdOffset(int fd, int64_t offset) {
  if (!InTable(fd)) return;
  const uint32_t d = g_fds[fd].description;
  if (d != 0) g_descriptions[d].offset.store(offset, std::memory_order_relaxed);
}

uint32_t OpenedFd(int fd, int dirfd, const char* path, int flags) {
  struct stat st;
  if (real::fstat()(fd, &st) != 0) return kNoObject;
  char absolute[4096];
  const bool known = AbsolutePath(dirfd, path, absolute, sizeof(absolute));
  const uint32_t object = FileObject(st.st_dev, st.st_ino, known ? absolute : path);
  if (!InTable(fd)) return object;
  const int64_t offset = (flags & O_APPEND) != 0 ? st.st_size : 0;
  Hold hold(g_lock);
  FdSlot& slot = g_fds[fd];
  DropSlot(slot);
  slot.description = NewDescription(offset);
  slot.stdio_offset = offset;
  __atomic_store_n(&slot.object, object, __ATOMIC_RELEASE);
  return object;
}

void DupFd(int from, int to) {
  if (!InTable(to)) return;
  Hold hold(g_lock);
  FdSlot& target = g_fds[to];
  DropSlot(target);
  if (!InTable(from) || g_fds[from].object == 0) return;  // looked at on first use
  target = g_fds[from];
  if (target.description != 0) ++g_descriptions[target.description].refs;
}

void ClosedFd(int fd) {
  if (!InTable(fd)) return;
  Hold hold(g_lock);
  DropSlot(g_fds[fd]);
}

void ClosedFdRange(unsigned first, unsigned last) {
  Hold hold(g_lock);
  for (unsigned fd = first; fd <= last && fd < static_cast<unsigned>(kMaxFds); ++fd) {
    if (g_fds[fd].object != 0) DropSlot(g_fds[fd]);
  }
}

int64_t StdioOffset(int fd) { return InTable(fd) ? g_fds[fd].stdio_offset : 0; }
void SetStdioOffset(int fd, int64_t offset) {
  if (InTable(fd)) g_fds[fd].stdio_offset = offset;
}
void AdvanceStdio(int fd, int64_t bytes) {
  if (InTable(fd) && bytes > 0) g_fds[fd].stdio_offset += bytes;
}

void LockFds() { g_lock.lock(); }
void UnlockFds() { g_lock.unlock(); }
void ResetFdsLock() { g_lock.Reset(); }

}  // namespace fathom::iotrace::preload
