// writer_attrs.cpp — WriterAttrs: /proc/PID/stat read once a second per writing process.
#include "sources/fanotify/writer_attrs.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

namespace fathom::fanotify_internal {
namespace {

constexpr int64_t kKeepNs = 1'000'000'000;
constexpr size_t kMaxKnown = 4096;

}  // namespace

pid_t ProcessGroupOf(pid_t pid) {
  char name[32];
  std::snprintf(name, sizeof name, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so the fields
  // are counted after its last ')'.
  const char* end = buf + n;
  const char* p = static_cast<const char*>(memrchr(buf, ')', static_cast<size_t>(n)));
  if (p == nullptr) return -1;
  for (int field = 0; field < 3; ++field) {  // " state", " ppid", " pgrp"
    p = static_cast<const char*>(std::memchr(p + 1, ' ', static_cast<size_t>(end - p - 1)));
    if (p == nullptr) return -1;
  }
  pid_t pgid = -1;
  auto [_, ec] = std::from_chars(p + 1, end, pgid);
  return ec == std::errc() ? pgid : -1;
}

const std::string& WriterAttrs::For(pid_t pid, int64_t now_ns) {
  if (pid <= 0) return none_;
  auto it = known_.find(pid);
  if (it != known_.end() && it->second.until_ns > now_ns) return it->second.attrs;
  if (known_.size() >= kMaxKnown) known_.clear();
  Known& k = known_[pid];
  const pid_t pgid = ProcessGroupOf(pid);
  k.attrs = "{\"pid\":" + std::to_string(pid);
  if (pgid > 0) k.attrs += ",\"pgid\":" + std::to_string(pgid);
  k.attrs += "}";
  k.until_ns = now_ns + kKeepNs;
  return k.attrs;
}

}  // namespace fathom::fanotify_internal
