// mailbox.h — hands results from a worker thread to the network thread and wakes its poll.
//
// Post() may be called from any thread; it appends and makes the eventfd readable. The network
// thread polls fd() and calls Take() for everything posted so far. Unbounded by itself: its
// producers are bounded by their own inputs (the commit queue, one replay per consumer).
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/status.h"

namespace fathom::aggregator {

// An eventfd that wakes the network thread's poll.
class Wakeup {
 public:
  static Result<Wakeup> Open() {
    int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return Status::FromErrno(errno, "creating the aggregator's wakeup eventfd");
    Wakeup w;
    w.fd_ = UniqueFd(fd);
    return w;
  }
  int fd() const { return fd_.get(); }
  void Signal() const {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(fd_.get(), &one, sizeof(one));
  }
  void Clear() const {
    uint64_t value;
    [[maybe_unused]] ssize_t n = ::read(fd_.get(), &value, sizeof(value));
  }

 private:
  UniqueFd fd_;
};

template <typename T>
class Mailbox {
 public:
  explicit Mailbox(const Wakeup& wakeup) : wakeup_(wakeup) {}
  void Post(T item) {
    {
      std::lock_guard lock(mu_);
      items_.push_back(std::move(item));
    }
    wakeup_.Signal();
  }
  std::vector<T> Take() {
    std::lock_guard lock(mu_);
    return std::exchange(items_, {});
  }

 private:
  const Wakeup& wakeup_;
  std::mutex mu_;
  std::vector<T> items_;  // guarded by mu_
};

}  // namespace fathom::aggregator
