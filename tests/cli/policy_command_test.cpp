// `fathom policy check|run|log` through the binary on a catalog made by `fathom scan`: the
// check's table, a dry run's list, the journal, clear errors for a bad configuration, an
// unknown policy or target; and a runner killed with SIGKILL at random points and started
// again until it finishes moves every entry to the trash exactly once.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <thread>

#include "fathom/policy.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

class PolicyCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    testing::MakeDirs(tree_ + "/keep");
    for (int i = 0; i < 4; ++i) testing::WriteFile(tree_ + "/f" + std::to_string(i) + ".tmp", "tmp");
    testing::WriteFile(tree_ + "/keep/k.tmp", "kept");
    testing::WriteFile(tree_ + "/data.h5", std::string(2048, 'h'));
    catalog_ = dir_ / "cat.db";
    Scan();
    config_ = dir_ / "policies.yaml";
    std::ofstream(config_) << "fileclasses:\n"
                              "  tmp: \"type == file and name == '*.tmp'\"\n"
                              "  protected: \"tree == " << tree_ << "/keep\"\n"
                              "policies:\n"
                              "  purge:\n"
                              "    default_action: delete\n"
                              "    ignore_fileclass: [protected]\n"
                              "    rules:\n"
                              "      - {name: tmp, target_fileclass: tmp}\n";
  }

  void Scan() {
    auto scanned = testing::Run({testing::FathomBinary(), "scan", "-q", "--catalog", catalog_, tree_});
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  }

  testing::RunResult Policy(std::vector<std::string> args) {
    std::vector<std::string> argv = {testing::FathomBinary(), "policy"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--catalog", catalog_});
    return testing::Run(argv);
  }

  testing::TempDir dir_;
  std::string tree_, catalog_, config_;
};

TEST_F(PolicyCommand, CheckShowsWhatEachRuleWouldActUpon) {
  auto r = Policy({"check", "--config", config_, "--csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "policy purge: 8 entries selected from the catalog\n"
            "            rule,        act,          volume, cond_false\n"
            "             tmp,          4,              12,          0\n"
            "\n"
            "Ignored: 2, out of scope: 0, targeted by no rule: 2\n"
            "  2 ignored: in fileclass protected\n");
}

TEST_F(PolicyCommand, ADryRunListsTheActionsAndChangesNothing) {
  auto r = Policy({"run", "purge", "--dry-run", "--config", config_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::SortedLines(r.out),
            (std::vector<std::string>{"would delete " + tree_ + "/f0.tmp (rule tmp)",
                                      "would delete " + tree_ + "/f1.tmp (rule tmp)",
                                      "would delete " + tree_ + "/f2.tmp (rule tmp)",
                                      "would delete " + tree_ + "/f3.tmp (rule tmp)"}));
  EXPECT_NE(r.err.find("policy purge (dry run): 4 candidates, 4 would be acted upon, 0 failed, 0 skipped, 12"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(access((tree_ + "/f0.tmp").c_str(), F_OK), 0);
  auto log = Policy({"log", "--csv", "-q"});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  EXPECT_EQ(log.out, "");
}

TEST_F(PolicyCommand, ARunActsAndTheLogShowsItsActionsAndRuns) {
  auto r = Policy({"run", "purge", "--config", config_, "--list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::SortedLines(r.out).size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(access((tree_ + "/f" + std::to_string(i) + ".tmp").c_str(), F_OK), -1);
  EXPECT_EQ(access((tree_ + "/keep/k.tmp").c_str(), F_OK), 0);
  auto log = Policy({"log", "purge", "--json"});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  for (int i = 0; i < 4; ++i) EXPECT_NE(log.out.find(tree_ + "/f" + std::to_string(i) + ".tmp"), std::string::npos);
  EXPECT_NE(log.out.find("\"state\":\"done\""), std::string::npos) << log.out;
  auto runs = Policy({"log", "--runs", "--csv", "-q"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("purge"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("done"), std::string::npos) << runs.out;
}

TEST_F(PolicyCommand, ReportShowsEachClassAndEachPolicysActions) {
  auto classes = testing::Run({testing::FathomBinary(), "report", "--catalog", catalog_, "--config", config_,
                               "--class-info=tmp", "--csv", "-q"});
  ASSERT_EQ(classes.exit_code, 0) << classes.err;
  // f0..f3.tmp (3 bytes each) and keep/k.tmp (4 bytes): 5 files, 16 bytes.
  EXPECT_TRUE(classes.out.starts_with("             tmp,          5,")) << classes.out;
  EXPECT_TRUE(classes.out.ends_with(",              16,               3,               4,               3\n"))
      << classes.out;
  auto unknown = testing::Run({testing::FathomBinary(), "report", "--catalog", catalog_, "--config", config_,
                               "--class-info=nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "fathom report: --class-info: " + config_ +
                             " defines no file class \"nope\" (it defines: protected, tmp)\n");

  ASSERT_EQ(Policy({"run", "purge", "--config", config_}).exit_code, 0);
  ASSERT_EQ(Policy({"run", "purge", "--config", config_}).exit_code, 0);
  auto info = testing::Run({testing::FathomBinary(), "report", "--catalog", catalog_, "--policy-info", "--csv", "-q"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  // Two runs: the first deletes the four files, the second finds them gone (skipped).
  EXPECT_TRUE(info.out.starts_with("           purge,          2,          4,          0,          4,              12,"))
      << info.out;
  EXPECT_TRUE(info.out.ends_with(",       done\n")) << info.out;
}

TEST_F(PolicyCommand, BadConfigurationsPoliciesAndTargetsAreClearErrors) {
  auto r = Policy({"run", "nope", "--config", config_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "fathom policy run: no policy 'nope' in " + config_ + " (defined: purge)\n");
  r = Policy({"check", "--config", dir_ / "missing.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.yaml"), std::string::npos) << r.err;
  r = Policy({"run", "purge", "--config", config_, "--target", "class:nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "fathom policy run: --target 'class:nope': " + config_ + " defines no file class \"nope\" (it defines: "
            "protected, tmp)\n");
  r = Policy({"run", "purge", "--config", config_, "--max-volume", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "fathom policy run: --max-volume 'lots': expected a size (e.g. 500GB)\n");
  std::ofstream(dir_ / "bad.yaml") << "policies:\n  p:\n    default_action: delete\n    rules:\n"
                                      "      - {name: r, condition: \"colour == red\"}\n";
  r = Policy({"check", "--config", dir_ / "bad.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'colour'"), std::string::npos) << r.err;
}

// Trash then restore: the entry comes back with its content, mode, owner and times; the
// catalog (rescanned) lists it as removed and restorable until then; restoring twice, or onto
// an existing name, is refused.
TEST_F(PolicyCommand, ATrashedEntryIsListedAsRestorableAndRestoredWithItsContentAndAttributes) {
  const std::string file = tree_ + "/data.h5";
  ASSERT_EQ(chmod(file.c_str(), 0640), 0);
  ASSERT_EQ(chown(file.c_str(), 4242, 4343), 0);
  struct timespec t[2] = {{1'600'000'000, 11}, {1'500'000'000, 22}};
  ASSERT_EQ(utimensat(AT_FDCWD, file.c_str(), t, 0), 0);
  struct stat before {};
  ASSERT_EQ(lstat(file.c_str(), &before), 0);
  Scan();
  const std::string trash = dir_ / "trash";
  std::ofstream(config_, std::ios::app) << "  trash:\n    default_action: {move: " << trash
                                        << "}\n    rules: [{name: h5, condition: \"name == '*.h5'\"}]\n";
  auto run = Policy({"run", "trash", "--config", config_});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(access(file.c_str(), F_OK), -1);
  Scan();  // the scan finds it gone: the catalog records its removal

  auto list = testing::Run({testing::FathomBinary(), "undelete", "--list", tree_, "--csv", "-q", "--catalog", catalog_});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(file + ", "), std::string::npos) << list.out;
  EXPECT_TRUE(list.out.ends_with(",      trash\n")) << list.out;

  auto restore = testing::Run({testing::FathomBinary(), "undelete", "--restore", file, "--catalog", catalog_});
  ASSERT_EQ(restore.exit_code, 0) << restore.err;
  EXPECT_EQ(restore.out, "restored " + file + "\n");
  struct stat after {};
  ASSERT_EQ(lstat(file.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_uid, 4242u);
  EXPECT_EQ(after.st_gid, 4343u);
  EXPECT_EQ(after.st_mtim.tv_sec, 1'500'000'000);
  EXPECT_EQ(after.st_mtim.tv_nsec, 22);
  std::ifstream in(file);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, std::string(2048, 'h'));

  auto again = testing::Run({testing::FathomBinary(), "undelete", "--restore", file, "--catalog", catalog_});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("no trashed copy of " + file), std::string::npos) << again.err;
  auto log = Policy({"log", "undelete", "--csv", "-q"});
  EXPECT_NE(log.out.find("restore"), std::string::npos) << log.out;
  EXPECT_NE(log.out.find(trash + file), std::string::npos) << log.out;
}

// A move-to-trash run killed with SIGKILL at random points, then started again, until one
// run ends: every file is in the trash exactly once at its path, none is left, and the
// journal holds exactly one finished move per file.
TEST_F(PolicyCommand, KilledAtRandomAndRunAgainMovesEveryEntryExactlyOnce) {
  constexpr int kFiles = 300;
  const std::string src = dir_ / "src";
  testing::MakeDirs(src + "/a/b");
  for (int i = 0; i < kFiles; ++i) {
    testing::WriteFile(src + (i % 3 == 0 ? "/a/b/" : i % 3 == 1 ? "/a/" : "/") + "d" + std::to_string(i) + ".dat",
                       std::to_string(i));
  }
  const std::string cat = dir_ / "src.db";
  auto scanned = testing::Run({testing::FathomBinary(), "scan", "-q", "--catalog", cat, src});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  const std::string trash = dir_ / "trash";
  const std::string config = dir_ / "trash.yaml";
  std::ofstream(config) << "policies:\n  trash:\n    default_action: {move: " << trash
                        << "}\n    rate_limit: 600/s\n    rules:\n      - {name: dat, condition: \"name == '*.dat'\"}\n";
  const std::vector<std::string> argv = {testing::FathomBinary(), "policy", "run", "trash", "--config", config,
                                         "--catalog", cat};
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(30, 300);
  int kills = 0;
  for (int round = 0; round < 8; ++round) {
    testing::Subprocess run(argv);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    run.Signal(SIGKILL);
    const int status = run.Wait();
    kills += status != 0;
  }
  auto last = testing::Run(argv);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_GT(kills, 0) << "no run was killed before it ended";

  std::map<std::string, int> done, unfinished;
  auto journal = policy::ActionJournal::Open(cat, true);
  ASSERT_TRUE(journal.ok()) << journal.status().message();
  ASSERT_TRUE((*journal)->Actions({}, [&](const policy::JournalAction& a) {
    if (a.state == policy::JournalAction::State::kDone) ++done[a.path];
    if (a.state == policy::JournalAction::State::kStarted) ++unfinished[a.path];
    EXPECT_EQ(a.destination, a.state == policy::JournalAction::State::kDone ? trash + a.path : a.destination);
    return true;
  }).ok());
  EXPECT_TRUE(unfinished.empty());
  ASSERT_EQ(done.size(), static_cast<size_t>(kFiles));
  for (const auto& [path, n] : done) {
    EXPECT_EQ(n, 1) << path << " moved " << n << " times";
    struct stat st {};
    EXPECT_EQ(lstat(path.c_str(), &st), -1) << path << " is still there";
    std::ifstream in(trash + path);
    std::string content;
    in >> content;
    const std::string name = path.substr(path.rfind("/d") + 2);
    EXPECT_EQ(content, name.substr(0, name.size() - 4)) << trash + path;
  }
  auto listed = testing::Run({"/usr/bin/find", trash, "-type", "f"});
  EXPECT_EQ(testing::SortedLines(listed.out).size(), static_cast<size_t>(kFiles)) << "a file moved twice or copied";
}

}  // namespace
}  // namespace fathom
