// The store feed: replays a store file from the catalog's position and polls it for more.
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "catalog/follow/event_feed.h"
#include "fathom/store.h"

namespace fathom::catalog {
namespace {

class StoreFeed final : public EventFeed {
 public:
  StoreFeed(std::unique_ptr<EventStore> store, uint64_t since)
      : store_(std::move(store)), cursor_(since) {}

  Status Next(FeedBatch& out, size_t max, std::chrono::milliseconds timeout) override {
    out.events.clear();
    out.lost_before = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      FATHOM_ASSIGN_OR_RETURN(const uint64_t first, store_->FirstId());
      out.lost_before = cursor_ > 0 && first > cursor_ + 1;
      ReplayQuery query;
      query.since_id = cursor_;
      query.limit = max;
      FATHOM_RETURN_IF_ERROR(store_->Replay(query, [&](const Event& e) {
        out.events.push_back(e);
        return true;
      }));
      if (!out.events.empty()) {
        cursor_ = out.events.back().id;
        return Status::Ok();
      }
      std::unique_lock lock(mu_);
      if (stop_ || std::chrono::steady_clock::now() >= deadline) return Status::Ok();
      wake_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + kPoll),
                       [this] { return stop_; });
    }
  }

  Status Acknowledge(uint64_t) override { return Status::Ok(); }

  uint64_t NewestId() override {
    auto last = store_->LastId();
    return last.ok() ? last.value() : 0;
  }

  void Stop() override {
    std::lock_guard lock(mu_);
    stop_ = true;
    wake_.notify_all();
  }

 private:
  static constexpr std::chrono::milliseconds kPoll{10};  // an empty read costs an index seek
  std::unique_ptr<EventStore> store_;
  uint64_t cursor_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
};

}  // namespace

Result<std::unique_ptr<EventFeed>> OpenStoreFeed(const std::string& path, uint64_t since) {
  StoreOptions options;
  options.path = path;
  options.read_only = true;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<EventStore> store, EventStore::Open(options));
  FATHOM_ASSIGN_OR_RETURN(const uint64_t last, store->LastId());
  if (since > last) {
    return Status::Error("the catalog has applied events of " + path + " through id " +
                         std::to_string(since) + ", but the store's newest id is " +
                         std::to_string(last) +
                         ": it is not the store the catalog follows (was it recreated?); follow "
                         "it under another --name, after `fathom scan` of its roots");
  }
  return std::unique_ptr<EventFeed>(new StoreFeed(std::move(store), since));
}

}  // namespace fathom::catalog
