// retry_log.h — when to log a failure that is being retried: the first failure at once, then
// after 1 s, 2 s, 4 s, ... and at most once a minute, so that an outage of an hour logs a few
// dozen lines instead of thousands. The caller logs, saying how many attempts failed.
// Plain value type, one thread; `now` is a parameter so that the schedule can be tested.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

namespace fathom::bus::internal {

class RetryLog {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kFirstInterval{1};
  static constexpr std::chrono::seconds kMaxInterval{60};

  // Counts a failed attempt; true when it is to be logged.
  bool Failed(Clock::time_point now = Clock::now()) {
    ++failures_;
    if (failures_ > 1 && now < next_) return false;
    interval_ = failures_ == 1 ? std::chrono::seconds(kFirstInterval) : std::min(interval_ * 2, kMaxInterval);
    next_ = now + interval_;
    return true;
  }
  // Attempts failed since the last success.
  uint64_t failures() const { return failures_; }
  // A success: returns how many attempts had failed before it, and starts over.
  uint64_t Succeeded() { return std::exchange(failures_, 0); }

 private:
  uint64_t failures_ = 0;
  std::chrono::seconds interval_{0};
  Clock::time_point next_{};
};

}  // namespace fathom::bus::internal
