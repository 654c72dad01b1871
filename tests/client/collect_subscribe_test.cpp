// `fathom collect` → `fathom aggregate` → `fathom subscribe` as separate processes over CURVE:
// FSMonitor's Table II end to end, path filters, durable consumer names, refused keys.
#include <gtest/gtest.h>

#include "client/distributed_env.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(CollectSubscribe, EvaluateOutputScriptReachesTheSubscriberAsTableII) {
  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  TempDir watched;
  Subprocess collect(env.Collect("t2", {"--source", "inotify:" + watched.path(), "-r"}));
  ASSERT_TRUE(collect.WaitForStderr("watches established", 20s)) << collect.stderr_text();
  Subprocess subscribe(env.Subscribe({"--since", "0", "--format", "inotify"}));
  std::vector<std::string> lines;
  for (const auto& step : EvaluateOutputScriptSteps(watched.path())) {
    step.run();
    auto got = subscribe.ReadLines(step.lines);
    lines.insert(lines.end(), got.begin(), got.end());
  }
  EXPECT_EQ(lines, ExpectedTableII(watched.path())) << subscribe.stderr_text() << collect.stderr_text();
  subscribe.Signal(SIGTERM);
  EXPECT_EQ(subscribe.Wait(), 0) << subscribe.stderr_text();
  collect.Signal(SIGTERM);
  EXPECT_EQ(collect.Wait(), 0) << collect.stderr_text();
  EXPECT_NE(collect.stderr_text().find("10 events committed"), std::string::npos) << collect.stderr_text();
}

TEST(CollectSubscribe, PathFilterWithoutRecursionStopsAtDirectEntries) {
  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  TempDir watched;
  MakeDirs(watched / "a/sub");
  MakeDirs(watched / "b");
  Subprocess collect(env.Collect("paths", {watched.path(), "-r", "--backend", "inotify", "-e", "CREATE"}));
  ASSERT_TRUE(collect.WaitForStderr("watches established", 20s)) << collect.stderr_text();
  for (const char* f : {"a/x", "a/sub/y", "b/z", "ab", "a/last"}) WriteFile(watched / f, "1");

  const std::vector<std::string> base = {"--since", "0", "--format", "json", "--path", watched / "a"};
  auto paths_of = [&](std::vector<std::string> extra) {
    Subprocess s(env.Subscribe(Concat(base, extra)));
    std::vector<std::string> paths;
    while (paths.empty() || paths.back() != watched / "a/last") {
      auto got = ReadJsonEvents(s, 1, 10s);
      if (got.empty()) break;
      paths.push_back(got.front().path);
    }
    return paths;
  };
  EXPECT_EQ(paths_of({}), (std::vector<std::string>{watched / "a/x", watched / "a/last"}));
  EXPECT_EQ(paths_of({"-r"}), (std::vector<std::string>{watched / "a/x", watched / "a/sub/y", watched / "a/last"}));
}

TEST(CollectSubscribe, DurableNameResumesAfterTheLastAcknowledgedId) {
  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  TempDir watched;
  Subprocess collect(env.Collect("durable", {watched.path(), "--backend", "inotify", "-e", "CREATE"}));
  ASSERT_TRUE(collect.WaitForStderr("watches established", 20s)) << collect.stderr_text();
  for (int i = 1; i <= 20; ++i) WriteFile(watched / ("f" + std::to_string(i)), "1");

  // A clean exit acknowledges what was printed: the next run continues right after it.
  {
    Subprocess first(env.Subscribe({"--name", "audit", "--since", "0", "--max-count", "10", "--format", "json"}));
    auto events = ReadJsonEvents(first, 10);
    ASSERT_EQ(events.size(), 10u) << first.stderr_text();
    EXPECT_EQ(events.back().id, 10u);
    EXPECT_EQ(first.Wait(), 0) << first.stderr_text();
  }
  uint64_t last_printed = 0;
  {
    Subprocess second(env.Subscribe({"--name", "audit", "--format", "json"}));
    auto events = ReadJsonEvents(second, 10);
    ASSERT_EQ(events.size(), 10u) << second.stderr_text();
    EXPECT_EQ(events.front().id, 11u);
    EXPECT_EQ(events.back().id, 20u);
    last_printed = events.back().id;
    std::this_thread::sleep_for(500ms);  // acknowledged and recorded by the aggregator
    second.Signal(SIGKILL);              // a crash: no goodbye, nothing more printed
    second.Wait();
  }
  for (int i = 21; i <= 40; ++i) WriteFile(watched / ("f" + std::to_string(i)), "1");
  Subprocess third(env.Subscribe({"--name", "audit", "--format", "json"}));
  auto events = ReadJsonEvents(third, 40 - last_printed, 10s);
  ASSERT_FALSE(events.empty()) << third.stderr_text();
  EXPECT_EQ(events.front().id, last_printed + 1) << "resumed elsewhere than after the last acknowledged id";
  EXPECT_EQ(events.back().id, 40u);
  EXPECT_EQ(events.size(), 40 - last_printed);
}

TEST(CollectSubscribe, UnlistedKeyIsRefusedWithAClearError) {
  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  std::vector<std::string> args = {FathomBinary(), "subscribe", "--from", env.endpoint(), "--since", "0"};
  auto stranger = env.Keys("stranger");
  args.insert(args.end(), stranger.begin(), stranger.end());
  RunResult r = testing::Run(args, 20s);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("refused this client's key"), std::string::npos) << r.err;

  TempDir watched;
  RunResult wrong_server = testing::Run({FathomBinary(), "collect", "--to", env.endpoint(), watched.path(), "--key",
                                env.dir() / "client.key", "--server-key", env.dir() / "stranger.pub"},
                               20s);
  EXPECT_EQ(wrong_server.exit_code, 1);
  EXPECT_NE(wrong_server.err.find("check that --server-key is the aggregator's public key"), std::string::npos)
      << wrong_server.err;
}

}  // namespace
}  // namespace fathom::testing
