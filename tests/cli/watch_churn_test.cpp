// `fathom watch -r --format json` under concurrent namespace churn: three processes reshape the
// watched tree at random, and replaying the printed JSON stream (creates, deletes, renames
// paired by cookie) from the empty tree rebuilds the real final tree exactly, with both
// backends. (The source-level test, tests/sources/namespace_churn_test.cpp, covers more seeds
// and kernel queue overflow.)
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "support/namespace_churn.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "support/tree_replay.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

// One JSON line of `fathom watch --format json` as an Event (kinds, cookie, root, path).
Event FromJson(const std::string& line) {
  const auto j = nlohmann::json::parse(line);
  Event e;
  for (const auto& name : j.at("events")) e.mask |= ParseKind(name.get<std::string>()).value_or(0);
  e.cookie = j.value("cookie", 0u);
  e.root = j.at("root").get<std::string>();
  e.path = j.at("path").get<std::string>();
  return e;
}

struct ChurnRun {
  std::string backend;
  uint64_t seed;
};

void PrintTo(const ChurnRun& r, std::ostream* os) { *os << r.backend << ", seed " << r.seed; }

class WatchChurn : public ::testing::TestWithParam<ChurnRun> {};

TEST_P(WatchChurn, ReplayingTheJsonStreamRebuildsTheFinalTree) {
  const ChurnRun& run = GetParam();
  if (run.backend == "fanotify" && geteuid() != 0) GTEST_SKIP() << "fanotify needs root";
  testing::TempDir dir;
  testing::Subprocess watch({testing::FathomBinary(), "watch", "-r", dir.path(), "--backend",
                             run.backend, "--format", "json"});
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
  std::vector<pid_t> workers;
  for (uint64_t i = 0; i < 3; ++i) {
    workers.push_back(testing::StartNamespaceChurn(
        dir.path(),
        testing::ChurnOptions{.seed = run.seed + i, .operations = 4000, .max_depth = 4}));
  }
  std::vector<Event> events;
  auto read_available = [&](std::chrono::milliseconds quiet) {
    while (auto line = watch.ReadLine(quiet)) events.push_back(FromJson(*line));
  };
  for (pid_t pid : workers) {
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) read_available(20ms);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  read_available(1500ms);  // the tree is final: everything until the stream has been quiet
  watch.Signal(SIGINT);
  EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
  const std::set<std::string> real = testing::RealTree(dir.path());
  const std::set<std::string> replayed = testing::Replay({}, events);
  EXPECT_EQ(replayed, real) << events.size() << " events, " << real.size()
                            << " entries in the final tree\n"
                            << testing::TreeDifferences(real, replayed);
}

INSTANTIATE_TEST_SUITE_P(Backends, WatchChurn,
                         ::testing::Values(ChurnRun{"inotify", 7000}, ChurnRun{"inotify", 7100},
                                           ChurnRun{"fanotify", 7000}),
                         [](const ::testing::TestParamInfo<ChurnRun>& info) {
                           return info.param.backend + "_seed" + std::to_string(info.param.seed);
                         });

}  // namespace
}  // namespace fathom
