// fd_table.cpp — what each descriptor reads and writes, and where it is.
//
// One slot per descriptor number (below kMaxFds; higher ones are looked up with fstat each
// time and have no tracked offset). A descriptor the tracer did not see opened (inherited,
// or made by socket, pipe...) is looked at once with fstat: a regular file or a block device
// becomes a file object, at the offset the kernel gives; anything else is remembered as not
// a file. Positions are kept by the tracer as the kernel keeps them: dup'ed descriptors share
// one (an open file description), read and write advance it, lseek sets it.
//
// The table takes no lock: its updates are atomic, so that a signal handler's close or dup,
// which may interrupt the tracer anywhere, can always make them.
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

// Zero at start-up without a constructor running (constinit): the tables are in .bss, and only
// the pages of descriptors a program uses are ever touched.
struct FdSlot {
  std::atomic<uint32_t> object{0};       // 0: not looked at yet; kNotAFile; else the file
  std::atomic<uint32_t> description{0};  // index into g_descriptions (0: none)
  int64_t stdio_offset = 0;
};
struct Description {
  std::atomic<int64_t> offset{0};
  std::atomic<uint32_t> refs{0};
};

constinit FdSlot g_fds[kMaxFds];
constinit Description g_descriptions[kDescriptions];
std::atomic<uint32_t> g_free_hint{1};

bool InTable(int fd) { return fd >= 0 && fd < kMaxFds; }

// A new description at `offset`; 0 if none is free.
uint32_t NewDescription(int64_t offset) {
  const uint32_t hint = g_free_hint.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < kDescriptions - 1; ++i) {
    const uint32_t d = 1 + (hint - 1 + i) % (kDescriptions - 1);
    uint32_t free = 0;
    if (g_descriptions[d].refs.load(std::memory_order_relaxed) == 0 &&
        g_descriptions[d].refs.compare_exchange_strong(free, 1, std::memory_order_acq_rel)) {
      g_descriptions[d].offset.store(offset, std::memory_order_relaxed);
      g_free_hint.store(d + 1 < kDescriptions ? d + 1 : 1, std::memory_order_relaxed);
      return d;
    }
  }
  return 0;
}

void Unref(uint32_t d) {
  if (d != 0 && g_descriptions[d].refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    g_free_hint.store(d, std::memory_order_relaxed);
  }
}

void DropSlot(FdSlot& slot) {
  slot.object.store(0, std::memory_order_release);
  Unref(slot.description.exchange(0, std::memory_order_acq_rel));
}

// Makes `slot` the file `object` at a new description, unless another thread filled it first.
void Fill(FdSlot& slot, uint32_t object, uint32_t description, int64_t stdio_offset) {
  Unref(slot.description.exchange(description, std::memory_order_acq_rel));
  slot.stdio_offset = stdio_offset;
  slot.object.store(object, std::memory_order_release);
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
  uint32_t object = slot.object.load(std::memory_order_acquire);
  if (object == 0) {
    struct stat st;
    object = Discover(fd, &st);
    const int64_t offset = object == kNotAFile ? 0 : real::lseek()(fd, 0, SEEK_CUR);
    Fill(slot, object, object == kNotAFile ? 0 : NewDescription(offset < 0 ? 0 : offset), offset < 0 ? 0 : offset);
  }
  if (object == kNotAFile) return {};
  const uint32_t d = slot.description.load(std::memory_order_acquire);
  return {object, d == 0 ? 0 : g_descriptions[d].offset.load(std::memory_order_relaxed)};
}

void AdvanceFd(int fd, int64_t bytes) {
  if (!InTable(fd) || bytes <= 0) return;
  const uint32_t d = g_fds[fd].description.load(std::memory_order_acquire);
  if (d != 0) g_descriptions[d].offset.fetch_add(bytes, std::memory_order_relaxed);
}

void SetFdOffset(int fd, int64_t offset) {
  if (!InTable(fd)) return;
  const uint32_t d = g_fds[fd].description.load(std::memory_order_acquire);
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
  Fill(g_fds[fd], object, NewDescription(offset), offset);
  return object;
}

void DupFd(int from, int to) {
  if (!InTable(to)) return;
  FdSlot& target = g_fds[to];
  DropSlot(target);
  if (!InTable(from)) return;
  const FdSlot& source = g_fds[from];
  const uint32_t object = source.object.load(std::memory_order_acquire);
  if (object == 0) return;  // looked at on first use
  const uint32_t d = source.description.load(std::memory_order_acquire);
  if (d != 0) g_descriptions[d].refs.fetch_add(1, std::memory_order_acq_rel);
  Fill(target, object, d, source.stdio_offset);
}

void ClosedFd(int fd) {
  if (InTable(fd)) DropSlot(g_fds[fd]);
}

void ClosedFdRange(unsigned first, unsigned last) {
  for (unsigned fd = first; fd <= last && fd < static_cast<unsigned>(kMaxFds); ++fd) {
    if (g_fds[fd].object.load(std::memory_order_relaxed) != 0) DropSlot(g_fds[fd]);
  }
}

int64_t StdioOffset(int fd) { return InTable(fd) ? g_fds[fd].stdio_offset : 0; }
void SetStdioOffset(int fd, int64_t offset) {
  if (InTable(fd)) g_fds[fd].stdio_offset = offset;
}
void AdvanceStdio(int fd, int64_t bytes) {
  if (InTable(fd) && bytes > 0) g_fds[fd].stdio_offset += bytes;
}

}  // namespace fathom::iotrace::preload
