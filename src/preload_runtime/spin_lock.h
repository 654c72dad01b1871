// spin_lock.h — the lock of the preloaded tracers' buffers and tables (docs/architecture.md,
// "Tracers"). Held for a few instructions; a waiter yields the processor while another
// thread keeps it. No constructor runs: a lock in a global is ready before any code of the
// library. After fork, the child resets every lock it inherited (the parent's other threads
// are gone, whatever they held).
#pragma once

#include <sched.h>

#include <atomic>

namespace fathom::preload_runtime {

class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) sched_yield();
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }
  void Reset() { locked_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> locked_{false};
};

class Hold {
 public:
  explicit Hold(SpinLock& lock) : lock_(lock) { lock_.lock(); }
  ~Hold() { lock_.unlock(); }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;

 private:
  SpinLock& lock_;
};

}  // namespace fathom::preload_runtime
