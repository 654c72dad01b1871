// `fathom catalog follow` on a PostgreSQL catalog whose server goes away in the middle of the
// stream and comes back: the follower stops with a message naming the server, the cause and
// where it will resume, having committed nothing it did not report; the catalog's position
// stays where the last confirmed commit put it; a follower started again once the server is
// back applies exactly the events after that position, and the catalog then matches the tree
// (`fathom catalog verify`) with every kept statistic agreeing with a recount.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/namespace_churn.h"
#include "support/postgres_server.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

class CatalogFollowPg : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    testing::MakeDirs(tree_ + "/seed/a/b");
    for (int i = 0; i < 20; ++i) testing::WriteFile(tree_ + "/seed/a/f" + std::to_string(i), "x");
    store_ = dir_ / "events.db";
  }

  testing::RunResult Fathom(std::vector<std::string> args, std::chrono::milliseconds timeout = 120s) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), timeout);
  }

  uint64_t StoreLastId() {
    StoreOptions options;
    options.path = store_;
    options.read_only = true;
    auto store = EventStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().message();
    return store.ok() ? store.value()->LastId().value() : 0;
  }

  // The catalog's recorded position, from `fathom catalog status`.
  uint64_t LastApplied() {
    auto status = Fathom({"catalog", "status", "--catalog", server_.uri()});
    EXPECT_EQ(status.exit_code, 0) << status.err;
    const std::string key = "consumer catalog: last applied id ";
    const size_t at = status.out.find(key);
    EXPECT_NE(at, std::string::npos) << status.out;
    return at == std::string::npos ? 0 : std::stoull(status.out.substr(at + key.size()));
  }

  // Three processes reshaping the tree at random, started now.
  // Stops the watch once its store has stopped growing (everything seen is stored).
  void StopWatchWhenQuiet(testing::Subprocess& watch) {
    uint64_t last = 0;
    for (int quiet = 0; quiet < 6;) {
      std::this_thread::sleep_for(250ms);
      const uint64_t now = StoreLastId();
      quiet = now == last ? quiet + 1 : 0;
      last = now;
    }
    watch.Signal(SIGINT);
    EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
  }

  testing::TempDir dir_;
  testing::PostgresServer server_;
  std::string tree_, store_;
};

TEST_F(CatalogFollowPg, ServerGoneMidFollowStopsClearlyAndARestartedFollowerConverges) {
  const std::string uri = server_.uri();
  ASSERT_EQ(Fathom({"scan", "-q", "--catalog", uri, tree_}).exit_code, 0);
  testing::Subprocess watch({testing::FathomBinary(), "watch", "-r", tree_, "--store", store_, "-q",
                             "--backend", "inotify"});
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
  testing::Subprocess follower({testing::FathomBinary(), "catalog", "follow", "--catalog", uri,
                                "--store", store_, "--batch", "64"});
  const std::vector<pid_t> churn = testing::StartChurnWorkers(tree_, 9100, 3000);

  // The follower has committed some of the stream, and the stream goes on, when the server
  // stops.
  uint64_t before = 0;
  for (int i = 0; i < 200 && before == 0; ++i) {
    std::this_thread::sleep_for(50ms);
    before = LastApplied();
  }
  ASSERT_GT(before, 0u) << "the follower applied nothing: " << follower.stderr_text();
  server_.Stop();

  const auto stopped_at = std::chrono::steady_clock::now();
  const int code = follower.Wait();
  EXPECT_LT(std::chrono::steady_clock::now() - stopped_at, 30s);
  EXPECT_EQ(code, 1) << follower.stderr_text();
  const std::string& err = follower.stderr_text();
  const std::string server = "catalog database \"fathom_test\" on 127.0.0.1:" + std::to_string(server_.port()) +
                             " as user \"fathom\"";
  EXPECT_NE(err.find("fathom catalog follow: " + server + ": "), std::string::npos) << err;
  EXPECT_NE(err.find("is the server running?"), std::string::npos) << err;
  EXPECT_NE(err.find("the catalog stands at event "), std::string::npos) << err;
  EXPECT_NE(err.find("run `fathom catalog follow` again once the server is back: it resumes there"),
            std::string::npos)
      << err;

  ASSERT_TRUE(testing::ReapChurnWorkers(churn));
  StopWatchWhenQuiet(watch);
  server_.Start();

  // Nothing the server did not confirm is recorded: the position is one the follower
  // committed, and the events after it are still to apply.
  const uint64_t position = LastApplied();
  const uint64_t newest = StoreLastId();
  const std::string stands = "the catalog stands at event ";
  const size_t at = err.find(stands);
  ASSERT_NE(at, std::string::npos) << err;
  const uint64_t reported = std::stoull(err.substr(at + stands.size()));
  EXPECT_GE(reported, before);
  EXPECT_LT(position, newest) << "the stream outgrew the follower before the server stopped";
  // The position it names, unless the server went away during a COMMIT, which it says.
  if (position != reported) {
    EXPECT_GT(position, reported);
    EXPECT_NE(err.find("whether the transaction was committed is unknown"), std::string::npos) << err;
  }

  auto rest = Fathom({"catalog", "follow", "--catalog", uri, "--store", store_, "--until-idle"});
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  // Exactly the events after the recorded position: none skipped, none applied twice.
  EXPECT_NE(rest.err.find("catalog: " + std::to_string(newest - position) + " events applied (last id " +
                          std::to_string(newest) + ")"),
            std::string::npos)
      << rest.err;

  auto verify = Fathom({"catalog", "verify", "--catalog", uri, tree_});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_EQ(verify.out, "");
  auto check = Fathom({"catalog", "check", "--recount", "--catalog", uri});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("every kept statistic agrees with a recount"), std::string::npos) << check.out;
}

}  // namespace
}  // namespace fathom
