// No loss under load: two processes run 100,000 create/write/close/unlink cycles each while
// `fathom watch --store` runs; every CREATE and DELETE must be printed and stored.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <unordered_map>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

constexpr int kProcs = 2;
constexpr int kCyclesPerProc = 100'000;

struct Counts {
  uint64_t creates = 0;
  uint64_t deletes = 0;
  uint64_t overflows = 0;
};

class NoLoss : public ::testing::TestWithParam<std::string> {};

TEST_P(NoLoss, EveryCreateAndDeleteOfTwoHundredThousandCyclesIsPrintedAndStored) {
  testing::TempDir dir;
  testing::TempDir state;
  const std::string db = state / "events.db";
  testing::Subprocess watch({testing::FathomBinary(), "watch", "-r", dir.path(), "--backend", GetParam(),
                             "--store", db, "--event", "CREATE,DELETE"});
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) kids.push_back(testing::StartCreateDeleteCycles(dir.path(), p, kCyclesPerProc));

  const uint64_t expected = static_cast<uint64_t>(kProcs) * kCyclesPerProc;
  Counts printed;
  const std::string create_prefix = dir.path() + " CREATE /p";
  const std::string delete_prefix = dir.path() + " DELETE /p";
  while (printed.creates < expected || printed.deletes < expected) {
    auto line = watch.ReadLine(30s);
    if (!line) break;
    if (line->rfind(create_prefix, 0) == 0) ++printed.creates;
    else if (line->rfind(delete_prefix, 0) == 0) ++printed.deletes;
    else if (line->find("OVERFLOW") != std::string::npos) ++printed.overflows;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "generator failed";
  }
  watch.Signal(SIGTERM);
  EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
  std::printf("[ figures  ] %s: %llu cycles, %.0f events/s reported (CREATE+DELETE)\n", GetParam().c_str(),
              static_cast<unsigned long long>(expected), 2.0 * expected / secs);

  EXPECT_EQ(printed.overflows, 0u);
  EXPECT_EQ(printed.creates, expected);
  EXPECT_EQ(printed.deletes, expected);

  auto store = EventStore::Open(StoreOptions{db, /*read_only=*/true});
  ASSERT_TRUE(store.ok()) << store.status().message();
  Counts stored;
  std::unordered_map<std::string, int> seen;
  ASSERT_TRUE(store.value()
                  ->Replay({}, [&](const Event& e) {
                    if (e.mask & kind::kCreate) ++stored.creates, ++seen[e.path];
                    if (e.mask & kind::kDelete) ++stored.deletes, --seen[e.path];
                    return true;
                  })
                  .ok());
  EXPECT_EQ(stored.creates, expected);
  EXPECT_EQ(stored.deletes, expected);
  EXPECT_EQ(seen.size(), expected) << "every generated name appears";
  for (const auto& [path, balance] : seen) {
    ASSERT_EQ(balance, 0) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, NoLoss, ::testing::Values("inotify", "fanotify"));

}  // namespace
}  // namespace fathom
