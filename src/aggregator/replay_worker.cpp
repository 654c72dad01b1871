// replay_worker.cpp — bounded replay slices from the store.
#include "aggregator/replay_worker.h"

namespace fathom::aggregator {

void ReplayWorker::Request(ReplayRequest request) {
  std::lock_guard lock(mu_);
  requests_.push_back(std::move(request));
  wake_.notify_one();
}

void ReplayWorker::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  wake_.notify_all();
}

void ReplayWorker::Run() {
  for (;;) {
    ReplayRequest request;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return closed_ || !requests_.empty(); });
      if (closed_) return;
      request = std::move(requests_.front());
      requests_.pop_front();
    }
    out_.Post(Slice(request));
  }
}

ReplayResult ReplayWorker::Slice(const ReplayRequest& request) {
  ReplayResult result;
  result.session = request.session;
  result.after_id = request.after_id;
  result.through_id = request.after_id;
  uint64_t expected = request.after_id + 1;
  uint64_t scanned = 0;
  ReplayQuery query;
  query.since_id = request.after_id;
  result.status = reader_->Replay(query, [&](const Event& e) {
    if (e.id != expected) {
      result.gone = {expected, std::min(e.id - 1, request.upto)};
      return false;
    }
    if (e.id > request.upto) return false;
    ++expected;
    ++scanned;
    result.through_id = e.id;
    if (request.filter.Matches(e)) result.events.push_back(e);
    return result.events.size() < request.max_events && scanned < kMaxScan &&
           e.id < request.upto;
  });
  if (result.status.ok() && !result.gone && scanned == 0 && request.upto > request.after_id) {
    result.gone = {expected, request.upto};
  }
  if (result.gone) {
    result.events.clear();
    auto first = reader_->FirstId();
    result.first_held = first.ok() ? first.value() : 0;
  }
  return result;
}

}  // namespace fathom::aggregator
