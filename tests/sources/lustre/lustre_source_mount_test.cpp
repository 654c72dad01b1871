// The Lustre source on a FUSE mount of fathom-lustre-sim: real programs' system calls become
// changelog records, read through the emulator's liblustreapi and resolved to events.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

std::map<std::string, std::string> Settings(const MountedFs& fs, const std::string& user) {
  return {{"lustre.device", "simfs-MDT0000"}, {"lustre.mount", fs.mount()}, {"lustre.user", user}};
}

std::vector<std::string> TableLines(const std::vector<Event>& events) {
  std::vector<std::string> lines;
  for (const auto& e : events) lines.push_back(e.root + " " + Line(e));
  return lines;
}

TEST(LustreSourceMountTest, EvaluateOutputScriptGivesTableII) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string cl1 = RegisterUser(fs.state_dir());
  const std::string root = fs.mount() + "/test";
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  LustreWatcher w(Settings(fs, cl1), {root}, kind::kDefault);
  ASSERT_TRUE(w.ok());
  RunEvaluateOutputScript(root);
  const auto expected = ExpectedTableII(root);
  const auto& events = w.CollectUntil([&](const std::vector<Event>& e) {
    return e.size() >= expected.size() && (e.back().mask & kind::kDelete) &&
           (e.back().mask & kind::kIsDir);
  });
  EXPECT_EQ(TableLines(events), expected);
  EXPECT_EQ(w.counters().unresolved, 0u);
  EXPECT_EQ(w.counters().malformed, 0u);
}

TEST(LustreSourceMountTest, ClearsOnlyItsOwnUserUpToTheAcknowledgedPosition) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string cl1 = RegisterUser(fs.state_dir());
  const std::string cl2 = RegisterUser(fs.state_dir());
  const std::string dir = fs.mount() + "/work";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  for (int i = 0; i < 20; ++i) WriteFile(dir + "/f" + std::to_string(i), "x");
  uint64_t acknowledged = 0;
  {
    LustreWatcher w(Settings(fs, cl1));
    ASSERT_TRUE(w.ok());
    const auto& events = w.CollectUntil([](const std::vector<Event>& e) {
      return !e.empty() && e.back().path.ends_with("/f19") && (e.back().mask & kind::kCloseWrite);
    });
    ASSERT_FALSE(events.empty());
    const uint64_t position = w.source().Position();
    ASSERT_GT(position, 10u);
    // Acknowledge part of what was handed out: only that much is cleared, for cl1 only.
    acknowledged = position - 5;
    ASSERT_TRUE(w.source().Acknowledge(acknowledged).ok());
  }
  EXPECT_EQ(ClearedBy(fs.state_dir(), cl1), acknowledged);
  EXPECT_EQ(ClearedBy(fs.state_dir(), cl2), 0u);
  // cl2 has cleared nothing: every record is still there for it.
  auto state = lustre_sim::SimState::Open(fs.state_dir());
  ASSERT_TRUE(state.ok()) << state.status().message();
  std::vector<lustre::ChangelogRecord> kept;
  ASSERT_TRUE((*state)->Read(0, 0, 1000, kept).ok());
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front().index, 1u);

  // A restarted source resumes after the acknowledged position and sees the rest.
  LustreWatcher again(Settings(fs, cl1), {}, kind::kAll, acknowledged);
  ASSERT_TRUE(again.ok());
  const auto& rest = again.CollectUntil([](const std::vector<Event>& e) {
    return !e.empty() && e.back().path.ends_with("/f19") && (e.back().mask & kind::kCloseWrite);
  });
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(nlohmann::json::parse(rest.front().attrs)["recno"].get<uint64_t>(), acknowledged + 1);
}

TEST(LustreSourceMountTest, StopsPromptlyWhenTheChangelogIsIdle) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string cl1 = RegisterUser(fs.state_dir());
  WriteFile(fs.mount() + "/a", "x");
  LustreWatcher w(Settings(fs, cl1));
  ASSERT_TRUE(w.ok());
  w.Collect(1);
  ASSERT_TRUE(w.source().Acknowledge(w.source().Position()).ok());
  const auto start = std::chrono::steady_clock::now();
  w.Destroy();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

}  // namespace
}  // namespace fathom::testing
