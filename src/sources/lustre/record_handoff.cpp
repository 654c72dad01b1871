#include "sources/lustre/record_handoff.h"

namespace fathom::lustre_source {

std::unique_ptr<RecordBatch> RecordHandoff::Empty() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopped_ || !free_.empty() || created_ < depth_; });
  if (stopped_) return nullptr;
  if (free_.empty()) {
    ++created_;
    return std::make_unique<RecordBatch>();
  }
  auto batch = std::move(free_.back());
  free_.pop_back();
  batch->Clear();
  return batch;
}

bool RecordHandoff::Push(std::unique_ptr<RecordBatch> batch) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return false;
    full_.push_back(std::move(batch));
  }
  cv_.notify_all();
  return true;
}

void RecordHandoff::Finish(Status status) {
  {
    std::lock_guard lock(mu_);
    finished_ = true;
    finish_status_ = std::move(status);
  }
  cv_.notify_all();
}

std::unique_ptr<RecordBatch> RecordHandoff::Pop(Status* finished) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopped_ || !full_.empty() || finished_; });
  if (stopped_) return nullptr;
  if (full_.empty()) {
    *finished = finish_status_;
    return nullptr;
  }
  auto batch = std::move(full_.front());
  full_.pop_front();
  return batch;
}

void RecordHandoff::Recycle(std::unique_ptr<RecordBatch> batch) {
  {
    std::lock_guard lock(mu_);
    free_.push_back(std::move(batch));
  }
  cv_.notify_all();
}

void RecordHandoff::Stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

}  // namespace fathom::lustre_source
