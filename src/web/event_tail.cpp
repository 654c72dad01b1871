// event_tail.cpp — EventTail: one reader of the growing store for every stream and rate.
#include "web/event_tail.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/thread_name.h"

namespace fathom::web {
namespace {

constexpr size_t kRingEvents = 10'000;
constexpr size_t kSeedEvents = 500'000;  // at most this many events read for the first rates
constexpr auto kPoll = std::chrono::milliseconds(200);

// The lowest id whose event is at or after `t_ns`, by bisection over ids (events are stored
// roughly in time order; this is where reading starts, not a filter).
uint64_t FirstIdAtOrAfter(EventStore& store, uint64_t first, uint64_t last, int64_t t_ns) {
  uint64_t lo = first, hi = last + 1;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    int64_t ts = 0;
    bool found = false;
    Status s = store.Replay(ReplayQuery{.since_id = mid - 1, .path_prefix = {}, .limit = 1}, [&](const Event& e) {
      ts = e.ts_ns;
      found = true;
      return false;
    });
    if (!s.ok() || !found) return lo;
    if (ts < t_ns) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

EventTail::EventTail(std::unique_ptr<EventStore> store, int window_s)
    : store_(std::move(store)), window_s_(window_s) {
  Seed();
  thread_ = std::thread([this] { Run(); });
}

EventTail::EventTail(std::unique_ptr<Subscriber> live, uint64_t seed_through, Reopen reopen, int window_s)
    : live_(std::move(live)), seed_through_(seed_through), reopen_(std::move(reopen)), window_s_(window_s) {
  thread_ = std::thread([this] { Run(); });
}

EventTail::~EventTail() { Stop(); }

void EventTail::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    if (live_) live_->Stop();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventTail::Seed() {
  auto last = store_->LastId();
  auto first = store_->FirstId();
  if (!last.ok() || !first.ok()) return;
  last_id_ = last.value();
  if (first.value() == 0) return;
  int64_t since_ns = NowNs() - int64_t{window_s_} * 1'000'000'000;
  uint64_t from = FirstIdAtOrAfter(*store_, first.value(), last.value(), since_ns);
  if (last.value() >= kSeedEvents) from = std::max(from, last.value() - kSeedEvents + 1);
  Status s = store_->Replay(ReplayQuery{.since_id = from - 1, .path_prefix = {}, .limit = 0}, [&](const Event& e) {
    if (e.id > last_id_) return false;
    if (e.ts_ns >= since_ns) Count(e, false);
    return true;
  });
  if (!s.ok()) error_ = s.message();
}

void EventTail::Count(const Event& e, bool total) {
  int64_t second = e.ts_ns / 1'000'000'000;
  for (std::string_view k : KindNameList(e.mask & ~kind::kIsDir)) {
    ++per_second_[{second, e.source, std::string(k)}];
    if (total) ++totals_[{e.source, std::string(k)}];
  }
}

Status EventTail::Fetch(uint64_t since, std::vector<Event>& fresh) {
  if (store_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait_for(lock, kPoll, [this] { return stop_; });
      if (stop_) return Status::Ok();
    }
    return store_->Replay(ReplayQuery{.since_id = since, .path_prefix = {}, .limit = 50'000}, [&](const Event& e) {
      fresh.push_back(e);
      return true;
    });
  }
  Status s = live_->Next(fresh, kPoll);
  if (!fresh.empty()) delivered_since_reopen_ = true;
  if (s.ok() && !fresh.empty()) s = live_->Acknowledge(fresh.back().id);
  if (s.ok() || stopped()) return s;
  const std::optional<uint64_t> from = delivered_since_reopen_ ? std::optional<uint64_t>(since) : std::nullopt;
  spdlog::warn("the event subscription failed ({}); subscribing again {}", s.message(),
               from ? "after id " + std::to_string(*from) : std::string("for new events"));
  std::this_thread::sleep_for(kPoll);
  delivered_since_reopen_ = false;
  auto again = reopen_(from);
  std::lock_guard<std::mutex> lock(mu_);
  if (again.ok() && !stop_) live_ = std::move(again).value();
  return s;
}

void EventTail::Run() {
  NameThisThread("serve-tail");
  std::vector<Event> fresh;
  while (true) {
    uint64_t since;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      since = last_id_;
    }
    fresh.clear();
    Status s = Fetch(since, fresh);
    std::lock_guard<std::mutex> lock(mu_);
    error_ = s.ok() ? "" : s.message();
    if (fresh.empty()) continue;
    for (Event& e : fresh) {
      Count(e, e.id > seed_through_);
      if (e.mask & kind::kOverflow) overflows_.push_back(e);
      ring_.push_back(std::move(e));
    }
    while (ring_.size() > kRingEvents) ring_.pop_front();
    while (!overflows_.empty() && overflows_.front().id < ring_.front().id) overflows_.pop_front();
    last_id_ = ring_.back().id;
    int64_t oldest = NowNs() / 1'000'000'000 - window_s_;
    per_second_.erase(per_second_.begin(), per_second_.lower_bound({oldest, "", ""}));
    changed_.notify_all();
  }
}

uint64_t EventTail::LastId() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_id_;
}

std::vector<Event> EventTail::After(uint64_t after_id, size_t max, bool& complete) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Event> out;
  complete = after_id >= last_id_ || (!ring_.empty() && ring_.front().id <= after_id + 1);
  if (!complete) return out;
  auto it = std::upper_bound(ring_.begin(), ring_.end(), after_id,
                             [](uint64_t id, const Event& e) { return id < e.id; });
  for (; it != ring_.end() && out.size() < max; ++it) out.push_back(*it);
  return out;
}

bool EventTail::WaitAfter(uint64_t after_id, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return stop_ || last_id_ > after_id; }) && !stop_;
}

bool EventTail::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

std::vector<Event> EventTail::RecentOverflows(size_t max) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Event> out;
  for (auto it = overflows_.rbegin(); it != overflows_.rend() && out.size() < max; ++it) out.push_back(*it);
  return out;
}

std::vector<RateCount> EventTail::Rates(int64_t since_s) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RateCount> out;
  for (auto it = per_second_.lower_bound({since_s, "", ""}); it != per_second_.end(); ++it) {
    const auto& [second, source, kind] = it->first;
    out.push_back({second, source, kind, it->second});
  }
  return out;
}

std::map<std::pair<std::string, std::string>, uint64_t> EventTail::Totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

std::string EventTail::Error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace fathom::web
