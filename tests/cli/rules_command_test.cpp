// `fathom rules` through the binary, on real stores and real commands: every matching event's
// action runs, once when nothing fails; a runner killed with SIGKILL at random points and
// started again still runs every action at least once, each repeat recognisable by its
// delivery id; a failing action ends dead-lettered and runs again when replayed; `rules test
// --explain` says why each rule takes each event or not.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

class RulesCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = dir_ / "events.db";
    log_ = dir_ / "ingested.log";
    outbox_ = dir_ / "rules.db";
    // The action: one line per run, "DELIVERY_ID ATTEMPT PATH".
    script_ = dir_ / "ingest.sh";
    std::ofstream(script_) << "#!/bin/sh\nprintf '%s %s %s\\n' \"$FATHOM_DELIVERY_ID\" \"$FATHOM_ATTEMPT\" \"$1\" >> "
                           << log_ << "\n";
    chmod(script_.c_str(), 0755);
  }

  // `files` CLOSE_WRITE events of /lab/raw/fN.h5 (the rule's), each after a MODIFY of the
  // same file and a CLOSE_WRITE elsewhere (not the rule's).
  void WriteEvents(size_t files) {
    StoreOptions options;
    options.path = store_;
    options.sync_full = false;
    auto store = EventStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<Event> batch;
    for (size_t i = 0; i < files; ++i) {
      const std::string f = Raw() + "/f" + std::to_string(i) + ".h5";
      for (uint32_t mask : {kind::kModify, kind::kCloseWrite}) {
        Event e;
        e.ts_ns = NowNs();
        e.mask = mask;
        e.root = dir_.path();
        e.path = f;
        e.source = "inotify";
        batch.push_back(e);
      }
      Event other = batch.back();
      other.path = dir_ / ("lab/other/g" + std::to_string(i) + ".h5");
      batch.push_back(other);
      if (batch.size() >= 3000) {
        ASSERT_TRUE((*store)->Append(batch).ok());
        batch.clear();
      }
    }
    ASSERT_TRUE((*store)->Append(batch).ok());
  }

  std::string Raw() const { return dir_ / "lab/raw"; }

  // `lease`: how long a killed runner's deliveries stay its own.
  void WriteRules(const std::string& action, const std::string& lease = "1min") {
    rules_ = dir_ / "rules.yaml";
    std::ofstream(rules_) << "outbox: " << outbox_ << "\n"
                          << "concurrency: 4\n"
                          << "lease: " << lease << "\n"
                          << "rules:\n"
                          << "  - name: h5\n"
                          << "    kinds: [CLOSE_WRITE]\n"
                          << "    path: \"" << Raw() << "/**.h5\"\n"
                          << "    retry: {max_attempts: 1}\n"
                          << "    action: " << action << "\n";
  }

  testing::RunResult Fathom(std::vector<std::string> args, std::chrono::milliseconds timeout = 120s) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), timeout);
  }

  // delivery id -> the paths its lines name; and the paths delivered.
  void ReadLog(std::map<std::string, std::set<std::string>>& by_id, std::multiset<std::string>& paths) {
    for (const std::string& line : Lines(testing::ReadFile(log_))) {
      std::istringstream in(line);
      std::string id, attempt, path;
      in >> id >> attempt >> path;
      by_id[id].insert(path);
      paths.insert(path);
    }
  }

  testing::TempDir dir_;
  std::string store_, log_, outbox_, script_, rules_;
};

TEST_F(RulesCommandTest, EveryMatchingEventsActionRunsOnceWhenNothingFails) {
  WriteEvents(500);
  WriteRules("{command: [" + script_ + ", '{path}'], allow_root: true}");
  auto run = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("1500 events read, 500 matched, 500 deliveries recorded, 500 succeeded, 0 to retry, 0 dead"),
            std::string::npos)
      << run.err;
  std::map<std::string, std::set<std::string>> by_id;
  std::multiset<std::string> paths;
  ReadLog(by_id, paths);
  ASSERT_EQ(paths.size(), 500u);
  for (size_t i = 0; i < 500; ++i) EXPECT_EQ(paths.count(Raw() + "/f" + std::to_string(i) + ".h5"), 1u) << i;
  EXPECT_EQ(by_id.size(), 500u);
  auto status = Fathom({"rules", "status", "--config", rules_, "--store", store_, "--csv"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("consumer rules: cursor 1500, newest event 1500, lag 0 events"), std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("h5,"), std::string::npos) << status.out;
  // Run again: nothing new, nothing runs twice.
  auto again = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("0 events read"), std::string::npos) << again.err;
  EXPECT_EQ(Lines(testing::ReadFile(log_)).size(), 500u);
}

TEST_F(RulesCommandTest, ARunnerKilledAtRandomRunsEveryActionAtLeastOnceRepeatsRecognisableById) {
  const size_t files = 3000;
  WriteEvents(files);
  WriteRules("{command: [" + script_ + ", '{path}'], allow_root: true}", "2s");
  std::mt19937 rng(20261125);
  for (int kill = 0; kill < 8; ++kill) {
    testing::Subprocess runner({testing::FathomBinary(), "rules", "run", "--config", rules_, "--store", store_});
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(100, 600)(rng)));
    runner.Signal(SIGKILL);
    runner.Wait();
  }
  auto last = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  std::map<std::string, std::set<std::string>> by_id;
  std::multiset<std::string> paths;
  ReadLog(by_id, paths);
  for (size_t i = 0; i < files; ++i) {
    EXPECT_GE(paths.count(Raw() + "/f" + std::to_string(i) + ".h5"), 1u) << "never ran for f" << i;
  }
  EXPECT_EQ(by_id.size(), files) << "one delivery id per matching event";
  for (const auto& [id, ps] : by_id) EXPECT_EQ(ps.size(), 1u) << id << " named several paths";
  EXPECT_GE(paths.size(), files);
}

TEST_F(RulesCommandTest, AFailingActionIsDeadLetteredAndRunsAgainWhenReplayed) {
  WriteEvents(3);
  const std::string failing = dir_ / "fail.sh";
  std::ofstream(failing) << "#!/bin/sh\nexit 3\n";
  chmod(failing.c_str(), 0755);
  WriteRules("{command: [" + failing + ", '{path}'], allow_root: true}");
  auto run = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("0 succeeded, 0 to retry, 3 dead"), std::string::npos) << run.err;
  auto dead = Fathom({"rules", "dead", "--config", rules_, "--csv", "--no-header"});
  ASSERT_EQ(dead.exit_code, 0) << dead.err;
  ASSERT_EQ(Lines(dead.out).size(), 3u) << dead.out;
  EXPECT_NE(dead.out.find("exit 3"), std::string::npos) << dead.out;
  // Fixed, replayed: they run again.
  std::ofstream(failing) << "#!/bin/sh\nprintf '%s %s %s\\n' \"$FATHOM_DELIVERY_ID\" \"$FATHOM_ATTEMPT\" \"$1\" >> "
                         << log_ << "\n";
  auto replay = Fathom({"rules", "replay", "--config", rules_, "--all"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.err.find("3 dead deliveries are pending again"), std::string::npos) << replay.err;
  auto rerun = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_NE(rerun.err.find("3 succeeded"), std::string::npos) << rerun.err;
  EXPECT_EQ(Lines(testing::ReadFile(log_)).size(), 3u);
  auto none = Fathom({"rules", "dead", "--config", rules_, "--csv", "--no-header"});
  EXPECT_EQ(none.out, "");
}

TEST_F(RulesCommandTest, TestExplainsWhyEachRuleTakesEachEventOrNot) {
  WriteEvents(1);
  WriteRules("{command: [" + script_ + ", '{path}'], allow_root: true}");
  auto test = Fathom({"rules", "test", "--config", rules_, "--store", store_, "--explain"});
  ASSERT_EQ(test.exit_code, 0) << test.err;
  const std::string f = Raw() + "/f0.h5";
  const std::string g = dir_ / "lab/other/g0.h5";
  EXPECT_EQ(Lines(test.out),
            (std::vector<std::string>{
                "event 1 MODIFY " + f + ": rule h5: kinds MODIFY not in CLOSE_WRITE",
                "event 2 CLOSE_WRITE " + f + ": rule h5 takes it",
                "would fire " + Lines(test.out).at(2).substr(11, 35) + ": rule h5 on " + f + " (events 2)",
                "event 3 CLOSE_WRITE " + g + ": rule h5: path " + g + " matches no glob of " + Raw() + "/**.h5",
            }));
  EXPECT_NE(test.err.find("3 events, 1 matches, 1 deliveries would be made (nothing ran)"), std::string::npos)
      << test.err;
  EXPECT_FALSE(std::ifstream(log_).good()) << "nothing ran";
}

// A root runner never runs a command as root unless the rule says so; `--explain` on `rules
// run` logs why each rule takes each event or not.
TEST_F(RulesCommandTest, ARootRunnerRefusesACommandThatWouldRunAsRootUnlessAllowed) {
  WriteEvents(1);
  WriteRules("{command: [" + script_ + ", '{path}']}");
  auto run = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle", "--explain"});
  if (geteuid() == 0) {
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find(rules_ + ": rule h5: its command would run as root (the runner runs as root): give "
                                    "run_as: USER, or allow_root: true in its action to run it as root"),
              std::string::npos)
        << run.err;
    EXPECT_FALSE(std::ifstream(log_).good()) << "nothing ran";
  } else {
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(Lines(testing::ReadFile(log_)).size(), 1u);
  }
  WriteRules("{command: [" + script_ + ", '{path}'], allow_root: true}");
  run = Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle", "--explain"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("event 1 MODIFY " + Raw() + "/f0.h5: rule h5: kinds MODIFY not in CLOSE_WRITE"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("event 2 CLOSE_WRITE " + Raw() + "/f0.h5: rule h5 takes it"), std::string::npos) << run.err;
  EXPECT_EQ(Lines(testing::ReadFile(log_)).size(), 1u);
}

}  // namespace
}  // namespace fathom
