// SignalWaiter: SIGHUP, SIGINT and SIGTERM sent to the process reach the callback, in order,
// on the waiter's own thread; its destructor stops that thread.
#include "cli/signal_waiter.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace fathom::cli {
namespace {

TEST(SignalWaiterTest, ProcessSignalsReachTheCallbackInOrderOnItsOwnThread) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> seen;
  bool other_thread = true;
  const std::thread::id me = std::this_thread::get_id();
  auto wait_for = [&](size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return seen.size() >= n; });
  };
  {
    SignalWaiter waiter([&](int sig) {
      std::lock_guard lock(mu);
      seen.push_back(sig);
      other_thread = other_thread && std::this_thread::get_id() != me;
      cv.notify_all();
    });
    for (int sig : {SIGHUP, SIGINT, SIGTERM}) {
      ASSERT_EQ(kill(getpid(), sig), 0);
      ASSERT_TRUE(wait_for(seen.size() + 1)) << "signal " << sig << " never reached the callback";
    }
  }
  EXPECT_EQ(seen, (std::vector<int>{SIGHUP, SIGINT, SIGTERM}));
  EXPECT_TRUE(other_thread);
}

}  // namespace
}  // namespace fathom::cli
