// event_tail.h — the events as they come, read once for every client: one thread reads the
// events appended to the store since its last look (every 200 ms), or those an aggregator
// sends a subscription, keeps the newest of them in a ring for the live streams, and counts
// events per second, source and kind for the rates (the last five minutes, seeded from the
// store or the subscription's first events at start) and the metrics (since start).
//
// Ownership: owns its thread and its own read-only store handle or subscription; Stop() (or
// the destructor) ends the thread and wakes every waiting stream. Threads: any member from any
// thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fathom/client.h"
#include "fathom/event.h"
#include "fathom/store.h"

namespace fathom::web {

// Events of one second, one source and one kind.
struct RateCount {
  int64_t second = 0;       // seconds since the epoch
  std::string source;
  std::string kind;         // a kind name: an event of several kinds counts once per kind
  uint64_t n = 0;
};

class EventTail {
 public:
  // Reads from `store` (read-only, owned); the rates of the last `window_s` seconds before
  // now are read from it first.
  EventTail(std::unique_ptr<EventStore> store, int window_s = 300);
  // Reads what `live` delivers (owned; opened to replay from a little before the newest
  // event, so that the ring and the rates start filled); events through `seed_through` are
  // counted in the rates but not in Totals(). When the subscription fails, `reopen` gives a
  // new one from the last event read; when that one fails too before it delivered anything
  // (the aggregator purged what was not read yet), from the newest event (nullopt).
  using Reopen = std::function<Result<std::unique_ptr<Subscriber>>(std::optional<uint64_t> since_id)>;
  EventTail(std::unique_ptr<Subscriber> live, uint64_t seed_through, Reopen reopen, int window_s = 300);
  ~EventTail();
  void Stop();

  // The newest id seen.
  uint64_t LastId() const;
  // Events with ids above `after_id`, in id order, at most `max`; `complete` is false when the
  // ring no longer holds all of them (the caller reads the rest from the store).
  std::vector<Event> After(uint64_t after_id, size_t max, bool& complete) const;
  // Waits until an id above `after_id` is seen, `timeout` passes, or the tail stops; returns
  // whether new events are there.
  bool WaitAfter(uint64_t after_id, std::chrono::milliseconds timeout) const;
  bool stopped() const;

  // The newest OVERFLOW events among those held in the ring, the newest first.
  std::vector<Event> RecentOverflows(size_t max) const;
  // Counts per second, source and kind since `since_s` (seconds since the epoch), oldest first.
  std::vector<RateCount> Rates(int64_t since_s) const;
  // Events seen since the tail started, per (source, kind).
  std::map<std::pair<std::string, std::string>, uint64_t> Totals() const;
  // The last read error ("" while reading works).
  std::string Error() const;

 private:
  void Run();
  // The next events after `since` into `fresh`, waiting up to 200 ms.
  Status Fetch(uint64_t since, std::vector<Event>& fresh);
  void Count(const Event& e, bool total);
  void Seed();

  std::unique_ptr<EventStore> store_;
  std::unique_ptr<Subscriber> live_;
  uint64_t seed_through_ = 0;
  Reopen reopen_;
  bool delivered_since_reopen_ = true;  // the subscription in use delivered events
  int window_s_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  bool stop_ = false;
  uint64_t last_id_ = 0;
  std::deque<Event> ring_;
  std::deque<Event> overflows_;  // of the ring's events, the OVERFLOWs (oldest first)
  std::map<std::tuple<int64_t, std::string, std::string>, uint64_t> per_second_;
  std::map<std::pair<std::string, std::string>, uint64_t> totals_;
  std::string error_;
  std::thread thread_;
};

}  // namespace fathom::web
