// Loops and storms through the binaries: `fathom watch` on a real directory (fanotify and
// inotify), `fathom rules run` reading its store, actions that write into the watched tree.
// An action runs once per original event, not forever: with fanotify its own changes are
// recognised by its process group, with inotify by the rule's `outputs`; a chain of rules
// stops at max_cascade with the last delivery dead-lettered; with nothing to recognise a loop
// by, the breaker pauses the rule, raises an alert and keeps its deliveries until resumed.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

// The fields of a line of --csv output, without the padding.
std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string f; std::getline(s, f, ',');) {
    const size_t b = f.find_first_not_of(' ');
    out.push_back(b == std::string::npos ? "" : f.substr(b));
  }
  return out;
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class RulesLoops : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    std::filesystem::create_directories(tree_);
    store_ = dir_ / "events.db";
    log_ = dir_ / "actions.log";
    alerts_ = dir_ / "alerts.log";
    rules_ = dir_ / "rules.yaml";
    // The action: "SUFFIX PATH": a line in the log (outside the tree), then PATH+SUFFIX
    // written by the shell itself (the action's own process).
    script_ = dir_ / "append.sh";
    std::ofstream(script_) << "#!/bin/sh\nprintf '%s\\n' \"$2\" >> " << log_ << "\nprintf 'x\\n' >> \"$2$1\"\n";
    chmod(script_.c_str(), 0755);
  }

  void TearDown() override {
    if (runner_) {
      runner_->Signal(SIGTERM);
      runner_->Wait();
    }
    if (watch_) {
      watch_->Signal(SIGINT);
      watch_->Wait();
    }
  }

  std::string Rule(const std::string& name, const std::string& glob, const std::string& suffix,
                   const std::string& extra = "") {
    return "  - name: " + name + "\n    kinds: [CLOSE_WRITE]\n    path: \"" + glob + "\"\n" + extra +
           "    action: {command: [" + script_ + ", '" + suffix + "', '{path}'], allow_root: true}\n";
  }

  void Start(const std::string& backend, const std::string& rules, const std::string& head = "") {
    std::ofstream(rules_) << "outbox: " << (dir_ / "rules.db") << "\n" << head << "alert_sinks: {log: " << alerts_
                          << "}\nrules:\n" << rules;
    watch_ = std::make_unique<testing::Subprocess>(std::vector<std::string>{
        testing::FathomBinary(), "watch", "-r", tree_, "--store", store_, "-q", "--backend", backend});
    ASSERT_TRUE(watch_->WaitForStderr("watches established", 20s)) << watch_->stderr_text();
    runner_ = std::make_unique<testing::Subprocess>(
        std::vector<std::string>{testing::FathomBinary(), "rules", "run", "--config", rules_, "--store", store_});
    ASSERT_TRUE(runner_->WaitForStderr("reading after event", 20s)) << runner_->stderr_text();
  }

  void Write(const std::string& name) { std::ofstream(tree_ + "/" + name) << "data\n"; }

  // Waits until the log has `n` lines, then that long again for anything more: its lines.
  std::vector<std::string> SettledLog(size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (Lines(log_).size() < n && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
    std::this_thread::sleep_for(2500ms);
    return Lines(log_);
  }

  testing::RunResult Fathom(std::vector<std::string> args) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), 60s);
  }

  testing::TempDir dir_;
  std::string tree_, store_, log_, alerts_, rules_, script_;
  std::unique_ptr<testing::Subprocess> watch_, runner_;
};

TEST_F(RulesLoops, WithFanotifyAnActionWritingIntoTheTreeRunsOncePerOriginalEvent) {
  Start("fanotify", Rule("sum", tree_ + "/**", ".sum"));
  for (int i = 0; i < 5; ++i) Write("f" + std::to_string(i));
  std::vector<std::string> log = SettledLog(5);
  std::sort(log.begin(), log.end());
  ASSERT_EQ(log.size(), 5u) << runner_->stderr_text();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(log[static_cast<size_t>(i)], tree_ + "/f" + std::to_string(i));
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(std::filesystem::exists(tree_ + "/f" + std::to_string(i) + ".sum"));
    EXPECT_FALSE(std::filesystem::exists(tree_ + "/f" + std::to_string(i) + ".sum.sum"));
  }
}

TEST_F(RulesLoops, WithInotifyTheRulesOutputsAreItsOwnAndItRunsOncePerOriginalEvent) {
  Start("inotify", Rule("sum", tree_ + "/**", ".sum", "    outputs: [\"**.sum\"]\n"));
  for (int i = 0; i < 5; ++i) Write("f" + std::to_string(i));
  std::vector<std::string> log = SettledLog(5);
  std::sort(log.begin(), log.end());
  ASSERT_EQ(log.size(), 5u) << runner_->stderr_text();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(log[static_cast<size_t>(i)], tree_ + "/f" + std::to_string(i));
  EXPECT_FALSE(std::filesystem::exists(tree_ + "/f0.sum.sum"));
}

TEST_F(RulesLoops, AChainOfRulesStopsAtMaxCascadeWithTheNextDeliveryDeadLettered) {
  // a.a -> (rule a) a.a.b -> (b, depth 1) a.a.b.a -> (a, 2) ...b -> (b, 3) ...a -> a at depth 4: dead.
  Start("fanotify", Rule("a", tree_ + "/**.a", ".b") + Rule("b", tree_ + "/**.b", ".a"), "max_cascade: 3\n");
  Write("x.a");
  const std::vector<std::string> log = SettledLog(4);
  ASSERT_EQ(log.size(), 4u) << runner_->stderr_text();
  EXPECT_EQ(log[0], tree_ + "/x.a");
  EXPECT_EQ(log[1], tree_ + "/x.a.b");
  EXPECT_EQ(log[2], tree_ + "/x.a.b.a");
  EXPECT_EQ(log[3], tree_ + "/x.a.b.a.b");
  EXPECT_FALSE(std::filesystem::exists(tree_ + "/x.a.b.a.b.a.b"));
  auto dead = Fathom({"rules", "dead", "--config", rules_, "--csv", "--no-header"});
  ASSERT_EQ(dead.exit_code, 0) << dead.err;
  const std::vector<std::string> rows = [&] {
    std::vector<std::string> out;
    std::stringstream s(dead.out);
    for (std::string line; std::getline(s, line);) out.push_back(line);
    return out;
  }();
  ASSERT_EQ(rows.size(), 1u) << dead.out;
  const std::vector<std::string> f = Fields(rows[0]);  // id, rule, state, attempts, events, path, last_result
  ASSERT_GE(f.size(), 7u) << rows[0];
  EXPECT_EQ(f[1], "a");
  EXPECT_EQ(f[2], "dead");
  EXPECT_EQ(f[3], "0");
  EXPECT_EQ(f[5], tree_ + "/x.a.b.a.b.a");
  EXPECT_NE(rows[0].find(", not run: the event was caused by an action 4 actions deep, past max_cascade 3"),
            std::string::npos)
      << rows[0];
}

TEST_F(RulesLoops, WithNothingToTellALoopByTheBreakerPausesTheRuleAlertsAndKeepsItsDeliveries) {
  Start("inotify", Rule("loop", tree_ + "/**", ".sum", "    breaker: {max: 5, per: 1min}\n"));
  Write("f");
  std::vector<std::string> log = SettledLog(5);
  ASSERT_EQ(log.size(), 5u) << runner_->stderr_text();
  EXPECT_EQ(log[4], tree_ + "/f.sum.sum.sum.sum");
  EXPECT_TRUE(runner_->WaitForStderr("rules: rule loop is paused: more than 5 deliveries within 60 s", 10s))
      << runner_->stderr_text();
  const std::vector<std::string> alerts = Lines(alerts_);
  ASSERT_FALSE(alerts.empty());
  EXPECT_NE(alerts.back().find("loop"), std::string::npos) << alerts.back();
  auto status = Fathom({"rules", "status", "--config", rules_, "--csv"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("rule loop is paused: more than 5 deliveries within 60 s"), std::string::npos)
      << status.out;
  // The sixth delivery is kept, not run: rule, pending, running, waiting, succeeded, dead.
  std::vector<std::string> row;
  std::stringstream lines(status.out);
  for (std::string line; std::getline(lines, line);) {
    if (std::vector<std::string> f = Fields(line); !f.empty() && f[0] == "loop") row = f;
  }
  ASSERT_GE(row.size(), 6u) << status.out;
  EXPECT_EQ(std::vector<std::string>(row.begin(), row.begin() + 6),
            (std::vector<std::string>{"loop", "1", "0", "0", "5", "0"}));

  auto resumed = Fathom({"rules", "resume", "--config", rules_, "loop"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  // The kept one runs, then five more in the breaker's fresh window; the next trips it again.
  log = SettledLog(11);
  EXPECT_EQ(log.size(), 11u) << runner_->stderr_text();
  auto again = Fathom({"rules", "resume", "--config", rules_, "nosuch"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("rule nosuch is not paused"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace fathom
