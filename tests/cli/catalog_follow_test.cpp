// `fathom scan`, `fathom watch --store` and `fathom catalog follow` together, as an
// administrator runs them: whatever three processes do to the tree meanwhile (nested mkdir,
// renames of populated directories across levels, rm -rf), once the follower has applied the
// stream and the tree is quiet, `fathom catalog verify` finds no difference between the
// catalog and the file system, and `fathom catalog check` finds every kept statistic right —
// for a follower running live through the churn, when the scan runs while the tree changes,
// and when the follower is killed (SIGKILL) again and again in the middle of its work; with
// each of the watch's kernel backends, on several random workloads.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <random>
#include <thread>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/namespace_churn.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

struct Setting {
  std::string backend;
  uint64_t seed;
};

class CatalogFollow : public ::testing::TestWithParam<Setting> {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    testing::MakeDirs(tree_ + "/seed/a/b");
    for (int i = 0; i < 20; ++i) testing::WriteFile(tree_ + "/seed/a/f" + std::to_string(i), "x");
    catalog_ = dir_ / "catalog.db";
    store_ = dir_ / "events.db";
  }

  testing::RunResult Fathom(std::vector<std::string> args, std::chrono::milliseconds timeout = 120s) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), timeout);
  }

  std::unique_ptr<testing::Subprocess> StartWatch() {
    auto watch = std::make_unique<testing::Subprocess>(std::vector<std::string>{
        testing::FathomBinary(), "watch", "-r", tree_, "--store", store_, "-q", "--backend",
        GetParam().backend});
    EXPECT_TRUE(watch->WaitForStderr("watches established", 20s)) << watch->stderr_text();
    return watch;
  }

  // Three processes reshaping the tree at random; returns once they are done.
  void Churn(uint64_t seed, int operations) {
    ASSERT_TRUE(testing::ReapChurnWorkers(testing::StartChurnWorkers(tree_, seed, operations)));
  }

  // Stops the watch once its store has stopped growing (everything seen is stored).
  void StopWatchWhenQuiet(testing::Subprocess& watch) {
    uint64_t last = 0;
    for (int quiet = 0; quiet < 6;) {
      std::this_thread::sleep_for(250ms);
      StoreOptions options;
      options.path = store_;
      options.read_only = true;
      auto store = EventStore::Open(options);
      ASSERT_TRUE(store.ok()) << store.status().message();
      const uint64_t now = store.value()->LastId().value();
      quiet = now == last ? quiet + 1 : 0;
      last = now;
    }
    watch.Signal(SIGINT);
    EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
  }

  testing::RunResult Verify() { return Fathom({"catalog", "verify", "--catalog", catalog_, tree_}); }

  void ExpectNoDrift() {
    auto verify = Verify();
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_EQ(verify.out, "");
    auto check = Fathom({"catalog", "check", "--catalog", catalog_});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  testing::TempDir dir_;
  std::string tree_, catalog_, store_;
};

TEST_P(CatalogFollow, ALiveFollowerSettlesOnceTheTreeIsQuiet) {
  ASSERT_EQ(Fathom({"scan", "--catalog", catalog_, tree_}).exit_code, 0);
  auto watch = StartWatch();
  testing::Subprocess follower({testing::FathomBinary(), "catalog", "follow", "--catalog",
                                catalog_, "--store", store_});
  Churn(GetParam().seed, 3000);
  StopWatchWhenQuiet(*watch);
  // The follower catches up, then compares what it read while lagging (every 2 s).
  testing::RunResult verify = Verify();
  for (int i = 0; i < 40 && !(verify.exit_code == 0 && verify.out.empty()); ++i) {
    std::this_thread::sleep_for(250ms);
    verify = Verify();
  }
  EXPECT_EQ(verify.out, "") << verify.err;
  follower.Signal(SIGINT);
  EXPECT_EQ(follower.Wait(), 0) << follower.stderr_text();
  ExpectNoDrift();
}

TEST_P(CatalogFollow, AScanRunningWhileTheTreeChangesConvergesOnceTheStreamIsApplied) {
  auto watch = StartWatch();
  std::thread churn([&] { Churn(GetParam().seed + 100, 3000); });
  std::this_thread::sleep_for(50ms);
  auto scanned = Fathom({"scan", "--catalog", catalog_, tree_});
  churn.join();
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  StopWatchWhenQuiet(*watch);
  auto follow = Fathom({"catalog", "follow", "--catalog", catalog_, "--store", store_, "--until-idle"});
  ASSERT_EQ(follow.exit_code, 0) << follow.err;
  ExpectNoDrift();
}

TEST_P(CatalogFollow, AFollowerKilledAgainAndAgainLosesNothingAndAppliesNothingTwice) {
  ASSERT_EQ(Fathom({"scan", "--catalog", catalog_, tree_}).exit_code, 0);
  auto watch = StartWatch();
  Churn(GetParam().seed + 200, 3000);
  StopWatchWhenQuiet(*watch);
  std::mt19937_64 rng(GetParam().seed);
  for (int round = 0; round < 8; ++round) {
    testing::Subprocess follower({testing::FathomBinary(), "catalog", "follow", "--catalog",
                                  catalog_, "--store", store_, "--batch", "256"});
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 200));
    follower.Signal(SIGKILL);
    follower.Wait();
  }
  auto rest = Fathom({"catalog", "follow", "--catalog", catalog_, "--store", store_, "--until-idle"});
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  ExpectNoDrift();
  auto status = Fathom({"catalog", "status", "--catalog", catalog_, "--store", store_});
  EXPECT_NE(status.out.find("lag 0 events"), std::string::npos) << status.out;
}

INSTANTIATE_TEST_SUITE_P(Backends, CatalogFollow,
                         ::testing::Values(Setting{"inotify", 9100}, Setting{"inotify", 9400},
                                           Setting{"fanotify", 9100}, Setting{"fanotify", 9700}),
                         [](const ::testing::TestParamInfo<Setting>& info) {
                           return info.param.backend + "_seed" + std::to_string(info.param.seed);
                         });

}  // namespace
}  // namespace fathom
