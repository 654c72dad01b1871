// event_tail.h — the store as it grows, read once for every client: one thread reads the
// events appended since its last look (every 200 ms), keeps the newest of them in a ring for
// the live streams, and counts events per second, source and kind for the rates (the last
// five minutes, seeded from the store at start) and the metrics (since start).
//
// Ownership: owns its thread and its own read-only store handle; Stop() (or the destructor)
// ends the thread and wakes every waiting stream. Threads: any member from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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
  void Count(const Event& e, bool total);
  void Seed();

  std::unique_ptr<EventStore> store_;
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
