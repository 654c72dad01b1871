// `fathom watch` end to end: the real binary, real kernel events, real SQLite.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::Subprocess;

std::vector<std::string> WatchArgs(const std::string& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> args{FathomBinary(), "watch", "-r", dir};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Runs Evaluate_Output_Script one step at a time, reading each step's lines before the next.
std::vector<std::string> RunPacedScript(Subprocess& p, const std::string& dir) {
  std::vector<std::string> lines;
  for (const auto& step : testing::EvaluateOutputScriptSteps(dir)) {
    step.run();
    auto got = p.ReadLines(step.lines);
    lines.insert(lines.end(), got.begin(), got.end());
  }
  return lines;
}

class WatchOnBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(WatchOnBackend, EvaluateOutputScriptPrintsTableII) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam()}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_EQ(RunPacedScript(p, dir.path()), testing::ExpectedTableII(dir.path()));
  EXPECT_FALSE(p.ReadLine(300ms).has_value()) << "no event beyond Table II";
}

TEST_P(WatchOnBackend, JsonRenameHalvesShareANonZeroCookie) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--format", "json"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "a", "");
  testing::Rename(dir / "a", dir / "b");
  auto lines = p.ReadLines(4);  // CREATE, CLOSE_WRITE, MOVED_FROM, MOVED_TO
  ASSERT_EQ(lines.size(), 4u);
  auto from = nlohmann::json::parse(lines[2]);
  auto to = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(from["events"], nlohmann::json::array({"MOVED_FROM"}));
  EXPECT_EQ(to["events"], nlohmann::json::array({"MOVED_TO"}));
  EXPECT_EQ(from["path"], dir / "a");
  EXPECT_EQ(to["path"], dir / "b");
  EXPECT_NE(from["cookie"], 0);
  EXPECT_EQ(from["cookie"], to["cookie"]);
  EXPECT_EQ(to["source"], GetParam());
  EXPECT_GT(to["id"].get<uint64_t>(), from["id"].get<uint64_t>());
  EXPECT_GT(to["ts"].get<int64_t>(), 1'600'000'000'000'000'000LL);
}

TEST_P(WatchOnBackend, EventAndExcludeFiltersApply) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--event", "DELETE", "--exclude", "*.tmp"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "x.tmp", "1");
  testing::WriteFile(dir / "keep", "1");
  std::filesystem::remove(dir / "x.tmp");
  std::filesystem::remove(dir / "keep");
  EXPECT_EQ(p.ReadLines(1), std::vector<std::string>{dir.path() + " DELETE /keep"});
  EXPECT_FALSE(p.ReadLine(300ms).has_value());
}

TEST_P(WatchOnBackend, StoreInsideTheWatchedTreeDoesNotReportItself) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--store", dir / "events.db"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "one", "1");
  auto lines = p.ReadLines(3);
  EXPECT_EQ(lines, (std::vector<std::string>{dir.path() + " CREATE /one", dir.path() + " MODIFY /one",
                                             dir.path() + " CLOSE_WRITE /one"}));
  EXPECT_FALSE(p.ReadLine(500ms).has_value()) << "the store's own writes were reported";
}

TEST_P(WatchOnBackend, StoredEventsReplayAfterTheLastSeenId) {
  testing::TempDir dir;
  testing::TempDir state;
  const std::string db = state / "events.db";
  {
    Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--store", db, "--format", "json"}));
    ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
    ASSERT_EQ(RunPacedScript(p, dir.path()).size(), 10u);
    p.Signal(SIGTERM);
    EXPECT_EQ(p.Wait(), 0) << p.stderr_text();
  }
  auto store = EventStore::Open(StoreOptions{db, /*read_only=*/true});
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<std::string> after4;
  ReplayQuery after_id_4;
  after_id_4.since_id = 4;
  ASSERT_TRUE(store.value()
                  ->Replay(after_id_4, [&](const Event& e) {
                    after4.push_back(dir.path() + " " + KindNames(e.mask) + " " + RelativePath(e.root, e.path));
                    return true;
                  })
                  .ok());
  auto expected = testing::ExpectedTableII(dir.path());
  EXPECT_EQ(after4, std::vector<std::string>(expected.begin() + 4, expected.end()));
}

// fanotify needs no pacing: a directory is known from its CREATE event, not from a watch.
TEST(WatchCommand, FanotifyPrintsTableIIForTheScriptAtFullSpeed) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", "fanotify"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::RunEvaluateOutputScript(dir.path());
  EXPECT_EQ(p.ReadLines(10), testing::ExpectedTableII(dir.path()));
}

INSTANTIATE_TEST_SUITE_P(Backends, WatchOnBackend, ::testing::Values("inotify", "fanotify"));

TEST(WatchCommand, AutoBackendSaysWhichBackendItChose) {
  testing::TempDir dir;
  Subprocess p({FathomBinary(), "watch", dir.path()});
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("chosen"), std::string::npos) << p.stderr_text();
}

TEST(WatchCommand, AutoBackendWithoutRootSaysWhyAndFallsBackToInotify) {
  testing::TempDir top;
  ASSERT_EQ(chmod(top.path().c_str(), 0755), 0);
  // A copy of the binary the unprivileged user can reach, wherever the build directory is.
  const std::string binary = top / "fathom";
  std::filesystem::copy_file(FathomBinary(), binary);
  testing::MakeDirs(top / "w");
  ASSERT_EQ(chmod((top / "w").c_str(), 0777), 0);
  const std::string dir = top / "w";
  // setpriv (util-linux) drops to an unprivileged user with no capabilities.
  Subprocess p({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                binary, "watch", dir});
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("backend fanotify not used: fanotify needs root"), std::string::npos)
      << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("backend inotify chosen"), std::string::npos) << p.stderr_text();
  testing::WriteFile(dir + "/seen", "");
  EXPECT_EQ(p.ReadLines(1), std::vector<std::string>{dir + " CREATE /seen"});
}

TEST(WatchCommand, NonRecursiveIgnoresSubdirectories) {
  testing::TempDir dir;
  testing::MakeDirs(dir / "sub");
  Subprocess p({FathomBinary(), "watch", dir.path(), "--backend", "inotify"});
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "sub/inner", "");
  testing::WriteFile(dir / "top", "");
  EXPECT_EQ(p.ReadLines(2), (std::vector<std::string>{dir.path() + " CREATE /top", dir.path() + " CLOSE_WRITE /top"}));
}

struct BadUsage {
  std::vector<std::string> args;
  std::string message;
};

class WatchBadUsage : public ::testing::TestWithParam<BadUsage> {};

TEST_P(WatchBadUsage, ExitsWithCode2AndSaysWhy) {
  testing::TempDir dir;
  std::vector<std::string> args{FathomBinary(), "watch"};
  for (const auto& a : GetParam().args) args.push_back(a == "DIR" ? dir.path() : a);
  auto r = testing::Run(args, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WatchBadUsage,
    ::testing::Values(BadUsage{{}, "give the directories to watch (PATH...)"},
                      BadUsage{{"/no/such/dir"}, "cannot watch '/no/such/dir'"},
                      BadUsage{{"/etc/passwd"}, "not a directory"},
                      BadUsage{{"DIR", "--backend", "kqueue"}, "--backend"},
                      BadUsage{{"DIR", "--event", "CREAT"}, "unknown event kind 'CREAT'"},
                      BadUsage{{"DIR", "--format", "xml"}, "unknown format 'xml'"},
                      BadUsage{{"DIR", "--max-events", "10"}, "give --store FILE too"},
                      BadUsage{{"DIR", "--store", "/tmp/x.db", "--max-age", "3 parsecs"}, "bad duration"},
                      BadUsage{{"DIR", "--set", "novalue"}, "expected KEY=VALUE"}));

}  // namespace
}  // namespace fathom
