#include "store/retention_timer.h"

#include <spdlog/spdlog.h>

#include "core/thread_name.h"
#include "core/thread_priority.h"
#include "store/store_schema.h"

namespace fathom::store {

Result<std::unique_ptr<RetentionTimer>> RetentionTimer::Start(const StoreOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(
      Connection own, Connection::Open(options.path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                       kBusyTimeoutMs));
  FATHOM_RETURN_IF_ERROR(
      own.Exec(SyncPragma(options.sync_full), "setting the retention thread's sync mode"));
  FATHOM_ASSIGN_OR_RETURN(Retention retention, Retention::Prepare(own, options));
  auto timer = std::unique_ptr<RetentionTimer>(
      new RetentionTimer(std::move(own), std::move(retention), options.retention_interval));
  timer->thread_ = std::thread([t = timer.get()] {
    NameThisThread("retention");
    // Removing expired events is never urgent: it yields the CPU to commits.
    if (!SetThisThreadNice(kBackgroundNice)) spdlog::debug("retention keeps its priority");
    t->Run();
  });
  return timer;
}

RetentionTimer::RetentionTimer(Connection own, Retention retention,
                               std::chrono::milliseconds interval)
    : own_(std::move(own)), retention_(std::move(retention)), interval_(interval) {}

RetentionTimer::~RetentionTimer() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

RetentionCounts RetentionTimer::Counts() const {
  return {runs_.load(), removed_.load(), failures_.load()};
}

void RetentionTimer::Run() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, interval_, [&] { return stop_; })) {
    lock.unlock();
    auto removed = retention_.PruneAll(own_);
    if (removed.ok()) {
      removed_.fetch_add(removed.value());
      if (removed.value() > 0) {
        spdlog::debug("event store {}: removed {} expired events", own_.path(), removed.value());
      }
    } else if (failures_.fetch_add(1) % 100 == 0) {
      spdlog::warn("{}; retention is tried again in {} ms", removed.status().message(),
                   interval_.count());
    }
    runs_.fetch_add(1);
    lock.lock();
  }
}

}  // namespace fathom::store
