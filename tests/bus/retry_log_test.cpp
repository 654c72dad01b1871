// The schedule of retry warnings: the first failure, then after 1 s, 2 s, 4 s, ... at most
// once a minute, counted again from a success.
#include "bus/retry_log.h"

#include <gtest/gtest.h>

#include <vector>

namespace fathom::bus::internal {
namespace {

using std::chrono::milliseconds;

// Seconds (since the first failure) at which failures every 250 ms for `total` are logged.
std::vector<double> LoggedAt(RetryLog& log, RetryLog::Clock::time_point start, milliseconds total) {
  std::vector<double> at;
  for (milliseconds t{0}; t < total; t += milliseconds(250)) {
    if (log.Failed(start + t)) at.push_back(static_cast<double>(t.count()) / 1000);
  }
  return at;
}

TEST(RetryLogTest, LogsTheFirstFailureThenAtDoublingIntervalsUpToAMinute) {
  RetryLog log;
  const auto start = RetryLog::Clock::now();
  const std::vector<double> expected{0, 1, 3, 7, 15, 31, 63, 123, 183};
  EXPECT_EQ(LoggedAt(log, start, milliseconds(200'000)), expected);
  EXPECT_EQ(log.failures(), 800u);
}

TEST(RetryLogTest, ASuccessReportsTheFailuresAndStartsOver) {
  RetryLog log;
  const auto start = RetryLog::Clock::now();
  EXPECT_EQ(LoggedAt(log, start, milliseconds(2000)), (std::vector<double>{0, 1}));
  EXPECT_EQ(log.Succeeded(), 8u);
  EXPECT_EQ(log.Succeeded(), 0u);
  EXPECT_TRUE(log.Failed(start + milliseconds(2100)));
  EXPECT_EQ(log.failures(), 1u);
}

}  // namespace
}  // namespace fathom::bus::internal
