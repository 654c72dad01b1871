// retry_backoff.h — exponential waits between retries, and a sleep that Stop() cuts short.
//
// RetryBackoff doubles from 100 ms up to a ceiling and starts over after Reset(). Plain value
// type, one thread. SleepUnlessStopped() polls `stop` every few milliseconds.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "client/aggregator_link.h"
#include "fathom/status.h"

namespace fathom::client {

class RetryBackoff {
 public:
  explicit RetryBackoff(std::chrono::milliseconds max) : max_(std::max(max, kFirst)) {}
  // The wait before the next retry; each call doubles the following one.
  std::chrono::milliseconds Next() {
    const auto wait = next_;
    next_ = std::min(next_ * 2, max_);
    return wait;
  }
  void Reset() { next_ = kFirst; }

 private:
  static constexpr std::chrono::milliseconds kFirst{100};
  std::chrono::milliseconds max_;
  std::chrono::milliseconds next_ = kFirst;
};

inline Status SleepUnlessStopped(std::chrono::milliseconds wait, const std::atomic<bool>& stop) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (stop.load()) return StoppedError();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return stop.load() ? StoppedError() : Status::Ok();
}

}  // namespace fathom::client
