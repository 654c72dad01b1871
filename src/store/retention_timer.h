// retention_timer.h — a writer's retention on a thread of its own, so that an idle store drops
// expired events too.
//
// Appends apply max_events and max_age as they commit (retention.h), but a store that receives
// nothing would keep events past max_age for as long as it stays idle. A RetentionTimer opens
// its own connection to the store and applies the bounds in full (Retention::PruneAll: bounded
// transactions) once every `interval`, whether or not anything was appended meanwhile; its
// transactions and the writer's take turns on SQLite's write lock. A run that fails (the disk
// is full, the store is locked past the busy timeout) is logged and tried again at the next.
//
// Counts() from any thread; the destructor stops and joins the thread (after the run under
// way, if any: a few bounded transactions).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "fathom/status.h"
#include "fathom/store.h"
#include "store/retention.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

struct RetentionCounts {
  uint64_t runs = 0;      // runs completed, successful or not
  uint64_t removed = 0;   // ids removed by them
  uint64_t failures = 0;  // runs that failed
};

class RetentionTimer {
 public:
  // Starts the thread for the store at options.path (existing, already in WAL mode), bounded
  // by options.max_events and options.max_age, every options.retention_interval (> 0).
  static Result<std::unique_ptr<RetentionTimer>> Start(const StoreOptions& options);
  ~RetentionTimer();
  RetentionTimer(const RetentionTimer&) = delete;
  RetentionTimer& operator=(const RetentionTimer&) = delete;

  RetentionCounts Counts() const;

 private:
  RetentionTimer(Connection own, Retention retention, std::chrono::milliseconds interval);
  void Run();

  Connection own_;
  Retention retention_;  // prepared on own_
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::atomic<uint64_t> runs_{0};
  std::atomic<uint64_t> removed_{0};
  std::atomic<uint64_t> failures_{0};
  std::thread thread_;
};

}  // namespace fathom::store
