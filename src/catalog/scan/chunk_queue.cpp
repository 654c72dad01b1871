#include "catalog/scan/chunk_queue.h"

namespace fathom::scan {

bool ChunkQueue::Push(ScanItem&& item) {
  {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return stopped_ || items_.size() < capacity_; });
    if (stopped_) return false;
    items_.push_back(std::move(item));
  }
  not_empty_.notify_one();
  return true;
}

bool ChunkQueue::TakeAll(std::deque<ScanItem>& out) {
  out.clear();
  {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return stopped_ || closed_ || !items_.empty(); });
    if (stopped_ || items_.empty()) return false;
    out.swap(items_);
  }
  not_full_.notify_all();
  return true;
}

void ChunkQueue::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  not_empty_.notify_all();
}

void ChunkQueue::Stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    items_.clear();
  }
  not_full_.notify_all();
  not_empty_.notify_all();
}

}  // namespace fathom::scan
