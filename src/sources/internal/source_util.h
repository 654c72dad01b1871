// source_util.h — pieces every kernel-backed source shares: root bookkeeping and the eventfd
// that lets Stop() (any thread) wake a Wait() blocked in poll().
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/source.h"
#include "fathom/status.h"

namespace fathom::source_internal {

// True when `path` lies strictly below `root` ("/a/b" is under "/a", "/ab" and "/a" are not).
bool IsUnder(std::string_view path, std::string_view root);

// The distinct roots, sorted; with `recursive`, a root inside another root is dropped because
// the outer one covers it.
std::vector<std::string> DistinctRoots(std::vector<std::string> roots, bool recursive);

// A source's counters: bumped by its reading thread, read by Stats() from any thread.
struct SourceCounters {
  std::atomic<uint64_t> events{0};
  std::atomic<uint64_t> overflows{0};
  std::atomic<uint64_t> rescans{0};
  std::atomic<uint64_t> watches{0};
  std::atomic<uint64_t> unresolved{0};
  std::atomic<uint64_t> watch_failures{0};

  SourceStats Snapshot() const {
    SourceStats s;
    s.events = events;
    s.overflows = overflows;
    s.rescans = rescans;
    s.watches = watches;
    s.unresolved = unresolved;
    s.watch_failures = watch_failures;
    return s;
  }
};

// Wait/Stop plumbing: Wait() polls the source's kernel descriptor and an eventfd; Stop() sets
// a flag and writes the eventfd. Stop() is safe from any thread; Wait() from the source's one.
class StopWaker {
 public:
  static Result<StopWaker> Create(std::string_view source_name);
  StopWaker(StopWaker&&) noexcept;
  StopWaker& operator=(StopWaker&&) = delete;

  // Returns when `kernel_fd` is readable, Stop() was called, or `timeout` passed.
  Status Wait(int kernel_fd, std::chrono::milliseconds timeout) const;
  // The same for several descriptors, each with its own events; their revents say which
  // were ready (all zero after a timeout or a Stop()).
  Status Wait(std::span<pollfd> fds, std::chrono::milliseconds timeout) const;
  void Stop();
  bool stopped() const { return stopped_; }

 private:
  StopWaker(UniqueFd fd, std::string_view source_name) : fd_(std::move(fd)), name_(source_name) {}
  UniqueFd fd_;
  std::string name_;
  std::atomic<bool> stopped_{false};
};

}  // namespace fathom::source_internal
