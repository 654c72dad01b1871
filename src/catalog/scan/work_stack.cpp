#include "catalog/scan/work_stack.h"

namespace fathom::scan {

// Every worker starts busy: it calls Pop() first, which counts it idle.
WorkStack::WorkStack(size_t capacity, size_t workers) : capacity_(capacity), busy_(workers) {}

bool WorkStack::TryPush(DirWork&& work) {
  {
    std::lock_guard lock(mu_);
    if (items_.size() >= capacity_) return false;
    items_.push_back(std::move(work));
  }
  cv_.notify_one();
  return true;
}

void WorkStack::Push(DirWork&& work) {
  {
    std::lock_guard lock(mu_);
    items_.push_back(std::move(work));
  }
  cv_.notify_one();
}

bool WorkStack::Pop(DirWork& out) {
  std::unique_lock lock(mu_);
  --busy_;
  if (busy_ == 0 && items_.empty()) cv_.notify_all();  // the scan is over: release the rest
  cv_.wait(lock, [&] { return stopped_ || !items_.empty() || busy_ == 0; });
  if (stopped_ || items_.empty()) return false;
  out = std::move(items_.back());
  items_.pop_back();
  ++busy_;
  return true;
}

void WorkStack::Stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

size_t WorkStack::size() const {
  std::lock_guard lock(mu_);
  return items_.size();
}

}  // namespace fathom::scan
