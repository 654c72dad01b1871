// The aggregator killed (SIGKILL) and restarted again and again while a collector sends a
// steady workload and a consumer reads: the store holds every event exactly once, and the
// consumer prints every id exactly once, in order, without a gap.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <random>
#include <thread>

#include "client/distributed_env.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

TEST(AggregatorRestart, KilledMidStreamLosesNothingAndStoresNothingTwice) {
  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  TempDir watched;
  Subprocess collect(env.Collect("restarts", {watched.path(), "--backend", "inotify"}));
  ASSERT_TRUE(collect.WaitForStderr("watches established", 20s)) << collect.stderr_text();
  Subprocess consumer(env.Subscribe({"--since", "0", "--format", "json"}));

  // Each round a workload runs while the aggregator is killed and started again.
  constexpr int kRounds = 5;
  constexpr int kCyclesPerRound = 300;  // 4 events each: CREATE, MODIFY, CLOSE_WRITE, DELETE
  constexpr int kCycles = kRounds * kCyclesPerRound;
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(50, 300);
  for (int round = 0; round < kRounds; ++round) {
    const pid_t workload = StartCreateDeleteCycles(watched.path(), round, kCyclesPerRound);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    env.Kill();
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    const bool started = env.Start();
    int status = 0;
    ASSERT_EQ(waitpid(workload, &status, 0), workload);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the workload failed";
    ASSERT_TRUE(started);
  }

  constexpr uint64_t kEvents = 4 * kCycles;
  auto events = ReadJsonEvents(consumer, kEvents, 20s);
  ASSERT_EQ(events.size(), kEvents) << consumer.stderr_text() << collect.stderr_text();
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(events[i].id, i + 1) << "the consumer saw a gap or a repeat at line " << i;
  }
  collect.Signal(SIGTERM);
  EXPECT_EQ(collect.Wait(), 0) << collect.stderr_text();
  consumer.Signal(SIGTERM);
  EXPECT_EQ(consumer.Wait(), 0) << consumer.stderr_text();
  env.Kill();

  uint64_t stored = 0;
  const auto paths = StoredPaths(env.store_path(), &stored);
  EXPECT_EQ(stored, kEvents);
  EXPECT_EQ(paths.size(), static_cast<size_t>(kCycles));
  for (const auto& [path, n] : paths) EXPECT_EQ(n, 4) << path << " stored " << n << " times";
}

}  // namespace
}  // namespace fathom::testing
