// counters.h — the aggregator's counters, shared by its threads as relaxed atomics.
#pragma once

#include <atomic>
#include <cstdint>

namespace fathom::aggregator {

struct Counters {
  std::atomic<uint64_t> events_received{0};
  std::atomic<uint64_t> events_committed{0};
  std::atomic<uint64_t> duplicate_events{0};
  std::atomic<uint64_t> events_sent{0};
  std::atomic<uint64_t> batches_committed{0};
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> commit_failures{0};
  std::atomic<uint64_t> commit_us_total{0};
  std::atomic<uint64_t> commit_us_last{0};
  std::atomic<uint64_t> commit_us_max{0};
  std::atomic<uint64_t> collectors{0};
  std::atomic<uint64_t> consumers{0};
  std::atomic<uint64_t> errors_sent{0};
  std::atomic<uint64_t> last_id{0};

  static void Add(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.fetch_add(n, std::memory_order_relaxed);
  }
  static void Set(std::atomic<uint64_t>& counter, uint64_t v) {
    counter.store(v, std::memory_order_relaxed);
  }
  static uint64_t Get(const std::atomic<uint64_t>& counter) {
    return counter.load(std::memory_order_relaxed);
  }
};

}  // namespace fathom::aggregator
