// RunPolicy on real catalogs of real trees: a purge removes exactly what GNU find selects for
// the same criteria (generated trees, several seeds); a dry run reports the same entries and
// changes nothing; entries changed since the catalog saw them are skipped (gone, replaced, no
// longer matching, reached through a symbolic link); limits, suspension, commands, copies,
// moves to a trash, the pre- and post-run commands, and the resumption of a killed run from
// its journal. Built twice (catalog_test_target.h): the catalog and its journal on SQLite,
// and on a PostgreSQL server the test starts.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "catalog/catalog_test_target.h"
#include "catalog/find/find_test_tree.h"
#include "fathom/policy.h"
#include "policy/scan_into.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::policy {
namespace {

using catalog::find_testing::BuildTree;
using catalog::find_testing::Captured;
using catalog::find_testing::RunCaptured;
using catalog::find_testing::ScratchMount;
using catalog::find_testing::SortedRecords;

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Replace(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

// Every name under `root` with its type, size, times, inode, mode and owner, for "nothing
// changed".
std::map<std::string, std::string> Snapshot(const std::string& root) {
  Captured c = RunCaptured({"/usr/bin/find", root, "-printf", "%p\\0%y %s %A@ %T@ %C@ %i %m %U %G\\0"}, "/");
  EXPECT_EQ(c.exit_code, 0) << c.err;
  std::map<std::string, std::string> out;
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t end = c.out.find('\0'); end != std::string::npos; start = end + 1, end = c.out.find('\0', start)) {
    fields.push_back(c.out.substr(start, end - start));
  }
  for (size_t i = 0; i + 1 < fields.size(); i += 2) out[fields[i]] = fields[i + 1];
  return out;
}

class PolicyRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("LC_ALL", "C", 1);
    ASSERT_TRUE(mount_.mounted()) << "tests run as root and mount a tmpfs with noatime";
    uri_ = testing::NewCatalogUri(dir_, "catalog");
  }

  // Scans `root` into the test's catalog and opens it for reading.
  void Scan(const std::string& root) {
    ScanInto(uri_, root);
    catalog::CatalogOptions options;
    options.uri = uri_;
    options.read_only = true;
    auto reader = catalog::Catalog::Open(options);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    catalog_ = std::move(reader).value();
  }

  void Configure(const std::string& yaml) {
    auto config = ParsePolicyConfig(yaml, "test.yaml");
    ASSERT_TRUE(config.ok()) << config.status().message();
    config_ = std::move(config).value();
  }

  std::unique_ptr<ActionJournal> Journal(bool read_only = false) {
    auto journal = ActionJournal::Open(uri_, read_only);
    EXPECT_TRUE(journal.ok()) << journal.status().message();
    return journal.ok() ? std::move(journal).value() : nullptr;
  }

  // Runs `policy`; `notes` gets "NOTE PATH" per entry reported.
  Result<RunSummary> Run(const std::string& policy, RunOptions options = {},
                         std::vector<std::string>* notes = nullptr) {
    const Policy* p = config_.Find(policy);
    EXPECT_NE(p, nullptr) << policy;
    if (p == nullptr) return Status::Error("no policy");
    options.report = [notes](const JournalAction& a, std::string_view note) {
      if (notes != nullptr) notes->push_back(std::string(note) + " " + a.path);
    };
    std::unique_ptr<ActionJournal> journal = options.dry_run ? nullptr : Journal();
    return RunPolicy(config_, *p, *catalog_, journal.get(), options);
  }

  std::vector<JournalAction> Actions(ActionQuery q = {}) {
    std::vector<JournalAction> out;
    auto journal = Journal(true);
    if (journal == nullptr) return out;
    Status s = journal->Actions(q, [&](const JournalAction& a) {
      out.push_back(a);
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
  }

  // A flat tree: `names` files (content "x") under mount/flat.
  std::string Flat(const std::vector<std::string>& names) {
    const std::string root = mount_.path() + "/flat";
    testing::MakeDirs(root);
    for (const std::string& n : names) testing::WriteFile(root + "/" + n, "x");
    return root;
  }

  ScratchMount mount_;
  testing::TempDir dir_;
  std::string uri_;
  std::unique_ptr<catalog::Catalog> catalog_;
  PolicyConfig config_;
};

// The policy and its GNU find equivalent (ages from a fixed `now`, placed by the tree builder
// at least 15 s from every minute boundary; GNU's -mmin +N holds for ages over N minutes):
//   rule old_txt: files named *.txt, modified more than 2 days ago  -> -mmin +2880
//   rule big: other files over 1 KiB or not read for a day           -> ( -size +1024c -o -amin +1440 )
//   ignore owner 65534                                               -> ! -uid 65534
// First match wins: a *.txt file not old enough is not tried by `big`.
constexpr const char* kPurge = R"yaml(
fileclasses:
  txt: "type == file and name == '*.txt'"
policies:
  purge:
    default_action: delete
    scope: "tree == ROOT"
    ignore: ["owner == 65534"]
    rules:
      - name: old_txt
        target_fileclass: txt
        condition: "last_mod > 2d"
      - name: big
        condition: "type == file and (size > 1K or last_access > 1d)"
)yaml";

std::vector<std::string> GnuPurge(const std::string& root) {
  Captured gnu = RunCaptured({"/usr/bin/find", root, "-type", "f", "!", "-uid", "65534", "(", "-name", "*.txt",
                              "-mmin", "+2880", "-o", "!", "-name", "*.txt", "(", "-size", "+1024c", "-o", "-amin",
                              "+1440", ")", ")", "-print0"},
                             "/");
  EXPECT_EQ(gnu.exit_code, 0) << gnu.err;
  return SortedRecords(gnu.out, '\0');
}

// Four generated trees under `root`, from `seed`.
void BuildTrees(const std::string& root, uint64_t seed, int64_t now_s) {
  testing::MakeDirs(root);
  for (uint64_t k = 0; k < 4; ++k) BuildTree(root + "/" + std::to_string(k), seed * 10 + k, now_s);
}

class PurgeAgainstGnuFind : public PolicyRunTest, public ::testing::WithParamInterface<uint64_t> {};

TEST_P(PurgeAgainstGnuFind, RemovesExactlyTheEntriesGnuFindSelects) {
  const std::string root = mount_.path() + "/t";
  const int64_t now_s = NowS();
  BuildTrees(root, GetParam(), now_s);
  Scan(root);
  Configure(Replace(kPurge, "ROOT", root));
  const std::vector<std::string> expected = GnuPurge(root);
  ASSERT_GE(expected.size(), 3u) << "seed " << GetParam() << " selects too little to compare";
  const auto before = Snapshot(root);

  RunOptions options;
  options.now_ns = now_s * 1'000'000'000;
  std::vector<std::string> notes;
  auto summary = Run("purge", options, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();

  std::vector<std::string> deleted;
  for (const JournalAction& a : Actions()) {
    EXPECT_EQ(a.state, JournalAction::State::kDone) << a.path << ": " << a.result;
    deleted.push_back(a.path);
  }
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, expected) << "seed " << GetParam();
  EXPECT_EQ(summary->run.actions, expected.size());
  EXPECT_EQ(summary->run.failed, 0u);
  EXPECT_EQ(summary->run.state, RunRecord::State::kDone);
  // Exactly those names are gone; every other name is still there.
  const auto after = Snapshot(root);
  for (const auto& [path, _] : before) {
    const bool selected = std::binary_search(expected.begin(), expected.end(), path);
    EXPECT_EQ(after.count(path), selected ? 0u : 1u) << path;
  }
  EXPECT_EQ(after.size() + expected.size(), before.size());
}

INSTANTIATE_TEST_SUITE_P(Seeds, PurgeAgainstGnuFind, ::testing::Range<uint64_t>(1, 9),
                         [](const auto& info) { return "seed" + std::to_string(info.param); });

TEST_F(PolicyRunTest, DryRunReportsWhatGnuFindSelectsAndChangesNothing) {
  const std::string root = mount_.path() + "/t";
  const int64_t now_s = NowS();
  BuildTrees(root, 9, now_s);
  Scan(root);
  Configure(Replace(kPurge, "ROOT", root));
  const auto before = Snapshot(root);
  std::string catalog_bytes;
  if (!testing::kPostgresTarget) catalog_bytes = testing::ReadFile(dir_ / "catalog.db");

  RunOptions options;
  options.dry_run = true;
  options.now_ns = now_s * 1'000'000'000;
  std::vector<std::string> notes;
  auto summary = Run("purge", options, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();

  std::vector<std::string> would;
  for (const std::string& n : notes) {
    ASSERT_TRUE(n.starts_with("would delete ")) << n;
    would.push_back(n.substr(13));
  }
  std::sort(would.begin(), would.end());
  EXPECT_EQ(would, GnuPurge(root));
  EXPECT_FALSE(would.empty());
  EXPECT_EQ(summary->run.id, 0);
  EXPECT_EQ(Snapshot(root), before);
  EXPECT_TRUE(Actions().empty());
  if (!testing::kPostgresTarget) {
    EXPECT_EQ(testing::ReadFile(dir_ / "catalog.db"), catalog_bytes) << "the catalog file changed";
  }
}

// mode == X selects what GNU find -perm X selects, on generated trees with 15 modes.
TEST_F(PolicyRunTest, ModeSelectsWhatGnuFindPermSelects) {
  const std::string root = mount_.path() + "/t";
  BuildTrees(root, 5, NowS());
  Scan(root);
  for (const std::string perm : {"0644", "-0750", "/0022", "/0002", "-4000", "/6000", "0000", "/0000"}) {
    Configure(Replace(R"yaml(
policies:
  p:
    default_action: log
    rules: [{name: r, condition: "mode == PERM"}]
)yaml",
                      "PERM", perm));
    RunOptions options;
    options.dry_run = true;
    std::vector<std::string> notes;
    auto summary = Run("p", options, &notes);
    ASSERT_TRUE(summary.ok()) << summary.status().message();
    std::vector<std::string> ours;
    for (const std::string& n : notes) ours.push_back(n.substr(std::string("would log ").size()));
    std::sort(ours.begin(), ours.end());
    Captured gnu = RunCaptured({"/usr/bin/find", root, "-perm", perm, "-print0"}, "/");
    ASSERT_EQ(gnu.exit_code, 0) << gnu.err;
    EXPECT_EQ(ours, SortedRecords(gnu.out, '\0')) << "mode == " << perm;
  }
}

constexpr const char* kDeleteAll = R"yaml(
policies:
  purge:
    default_action: delete
    rules:
      - name: dat
        condition: "type == file and name == '*.dat'"
)yaml";

TEST_F(PolicyRunTest, EntriesChangedSinceTheCatalogSawThemAreSkipped) {
  const std::string root = Flat({"gone.dat", "replaced.dat", "renamed.dat", "kept.dat"});
  testing::MakeDirs(root + "/sub");
  testing::WriteFile(root + "/sub/linked.dat", "x");
  testing::MakeDirs(mount_.path() + "/outside");
  testing::WriteFile(mount_.path() + "/outside/linked.dat", "precious");
  Scan(root);
  Configure(kDeleteAll);
  // After the catalog's scan: one file removed, one replaced by another object, one renamed
  // away and its name no longer *.dat, and a directory of a path replaced by a symbolic link
  // to a directory outside the tree holding a file of the same name.
  ASSERT_EQ(unlink((root + "/gone.dat").c_str()), 0);
  ASSERT_EQ(unlink((root + "/replaced.dat").c_str()), 0);
  testing::WriteFile(root + "/replaced.dat", "new");
  testing::Rename(root + "/renamed.dat", root + "/renamed.txt");
  testing::WriteFile(root + "/renamed.dat.keep", "");
  testing::Rename(root + "/sub", root + "/sub.old");
  ASSERT_EQ(symlink((mount_.path() + "/outside").c_str(), (root + "/sub").c_str()), 0);

  std::vector<std::string> notes;
  auto summary = Run("purge", {}, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  std::sort(notes.begin(), notes.end());
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "delete " + root + "/kept.dat",
                       "skipped: a directory of its path is now a symbolic link " + root + "/sub/linked.dat",
                       "skipped: no longer there " + root + "/gone.dat",
                       "skipped: no longer there " + root + "/renamed.dat",
                       "skipped: the path now leads to another object " + root + "/replaced.dat",
                   }));
  EXPECT_EQ(summary->run.actions, 1u);
  EXPECT_EQ(summary->run.skipped, 4u);
  EXPECT_EQ(testing::ReadFile(mount_.path() + "/outside/linked.dat"), "precious");
  EXPECT_EQ(testing::ReadFile(root + "/replaced.dat"), "new");
  EXPECT_EQ(testing::ReadFile(root + "/sub.old/linked.dat"), "x");
}

// A directory of the tree swapped again and again with a symbolic link to a directory
// outside it, holding files of the same names, while a purge runs: the purge deletes only
// files of the tree, never one outside.
TEST_F(PolicyRunTest, ASymbolicLinkRacingTheRunNeverLeadsAnActionOutsideTheTree) {
  std::vector<std::string> names;
  for (int i = 0; i < 400; ++i) names.push_back("d/f" + std::to_string(i) + ".dat");
  const std::string root = mount_.path() + "/flat";
  testing::MakeDirs(root + "/d");
  for (const std::string& n : names) testing::WriteFile(root + "/" + n, "x");
  const std::string outside = mount_.path() + "/outside";
  testing::MakeDirs(outside);
  for (int i = 0; i < 400; ++i) testing::WriteFile(outside + "/f" + std::to_string(i) + ".dat", "precious");
  Scan(root);
  Configure(kDeleteAll);
  std::atomic<bool> done{false};
  std::atomic<int> swaps{0};
  std::thread racer([&] {
    while (!done) {
      if (rename((root + "/d").c_str(), (root + "/d.real").c_str()) != 0) continue;
      symlink(outside.c_str(), (root + "/d").c_str());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      unlink((root + "/d").c_str());
      rename((root + "/d.real").c_str(), (root + "/d").c_str());
      ++swaps;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  // Runs again until every file of the tree is gone (each run skips what it finds behind the
  // link, or gone, and deletes the rest).
  uint64_t deleted = 0;
  for (int run = 0; run < 50 && deleted < 400; ++run) {
    auto summary = Run("purge");
    ASSERT_TRUE(summary.ok()) << summary.status().message();
    EXPECT_EQ(summary->run.failed, 0u);
    deleted += summary->run.actions;
  }
  done = true;
  racer.join();
  EXPECT_GT(swaps.load(), 0);
  for (int i = 0; i < 400; ++i) {
    EXPECT_EQ(testing::ReadFile(outside + "/f" + std::to_string(i) + ".dat"), "precious") << i;
  }
  EXPECT_EQ(deleted, 400u) << "each file of the tree deleted once, in the runs it was reachable";
  for (const std::string& n : names) {
    EXPECT_NE(access((root + "/" + n).c_str(), F_OK), 0) << n;
    EXPECT_NE(access((root + "/d.real/" + n.substr(2)).c_str(), F_OK), 0) << n;
  }
}

// Faults of the live file system are failures naming the entry, and the run goes on: a
// destination that is full, an entry that may not be removed (immutable, on ext4).
TEST_F(PolicyRunTest, AFullDestinationOrAnEntryThatMayNotBeRemovedFailsNamingItAndTheRunGoesOn) {
  const std::string root = Flat({"a.dat", "b.dat"});
  testing::WriteFile(root + "/big.dat", std::string(2 << 20, 'b'));
  Scan(root);
  const std::string small = mount_.path() + "/small";
  testing::MakeDirs(small);
  ASSERT_EQ(mount("tmpfs", small.c_str(), "tmpfs", 0, "size=1m"), 0);
  Configure(Replace(R"yaml(
policies:
  archive:
    default_action: {copy: SMALL}
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml",
                    "SMALL", small));
  std::vector<std::string> notes;
  auto summary = Run("archive", {}, &notes);
  umount2(small.c_str(), MNT_DETACH);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->run.actions, 2u);
  EXPECT_EQ(summary->run.failed, 1u);
  std::map<std::string, std::string> result;
  for (const JournalAction& a : Actions()) result[a.path] = a.result;
  EXPECT_EQ(result[root + "/big.dat"], "cannot write " + small + root + "/big.dat.fathom-copy: No space left on device");

  // Immutable files cannot be removed, even by root: ext4 (the test's own directory) has the flag.
  const std::string ext4 = dir_ / "ext4";
  testing::MakeDirs(ext4);
  testing::WriteFile(ext4 + "/locked.dat", "l");
  testing::WriteFile(ext4 + "/free.dat", "f");
  Captured chattr = RunCaptured({"/usr/bin/chattr", "+i", ext4 + "/locked.dat"}, "/");
  ASSERT_EQ(chattr.exit_code, 0) << chattr.err;
  Scan(ext4);
  Configure(kDeleteAll);
  notes.clear();
  RunOptions only_ext4;
  only_ext4.target = "path:" + ext4;
  summary = Run("purge", only_ext4, &notes);
  RunCaptured({"/usr/bin/chattr", "-i", ext4 + "/locked.dat"}, "/");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  std::sort(notes.begin(), notes.end());
  EXPECT_EQ(notes, (std::vector<std::string>{"delete " + ext4 + "/free.dat",
                                             "failed: cannot remove " + ext4 + "/locked.dat: Operation not permitted " +
                                                 ext4 + "/locked.dat"}));
}

TEST_F(PolicyRunTest, AnEntryThatNoLongerMatchesOnTheLiveFileSystemIsSkipped) {
  const std::string root = Flat({"a.dat", "b.dat"});
  struct timespec old[2] = {{NowS() - 10 * 86400, 0}, {NowS() - 10 * 86400, 0}};
  for (const char* n : {"/a.dat", "/b.dat"}) ASSERT_EQ(utimensat(AT_FDCWD, (root + n).c_str(), old, 0), 0);
  Scan(root);
  Configure(R"yaml(
policies:
  purge:
    default_action: delete
    rules: [{name: old, condition: "name == '*.dat' and last_mod > 5d"}]
)yaml");
  testing::WriteFile(root + "/b.dat", "written since");
  std::vector<std::string> notes;
  auto summary = Run("purge", {}, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  std::sort(notes.begin(), notes.end());
  EXPECT_EQ(notes, (std::vector<std::string>{"delete " + root + "/a.dat",
                                             "skipped: no longer matches (rule old: its condition does not hold) " +
                                                 root + "/b.dat"}));
  EXPECT_EQ(access((root + "/b.dat").c_str(), F_OK), 0);
}

TEST_F(PolicyRunTest, TheLowestCountOrVolumeLimitEndsTheRunInSortOrder) {
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) names.push_back("f" + std::to_string(i) + ".dat");
  const std::string root = Flat(names);
  // f9 was read longest ago, f0 most recently: sort by last_access acts on f9 first.
  for (int i = 0; i < 10; ++i) {
    struct timespec t[2] = {{NowS() - 1000 * (i + 1), 0}, {NowS(), 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (root + "/" + names[i]).c_str(), t, 0), 0);
  }
  Scan(root);
  Configure(R"yaml(
policies:
  purge:
    default_action: delete
    sort: last_access
    max_action_count: 5
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml");
  RunOptions options;
  options.max_actions = 3;
  std::vector<std::string> notes;
  auto summary = Run("purge", options, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(notes, (std::vector<std::string>{"delete " + root + "/f9.dat", "delete " + root + "/f8.dat",
                                             "delete " + root + "/f7.dat"}));
  EXPECT_EQ(summary->run.state, RunRecord::State::kLimited);
  EXPECT_EQ(summary->run.message, "the limit of 3 actions was reached");

  // Each file is 1 byte: a volume limit of 2 bytes stops after two.
  notes.clear();
  options = {};
  options.max_volume = 2;
  summary = Run("purge", options, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(notes.size(), 5u) << "the three deleted are skipped, then two more";
  EXPECT_EQ(notes[3], "delete " + root + "/f6.dat");
  EXPECT_EQ(notes[4], "delete " + root + "/f5.dat");
  EXPECT_EQ(summary->run.message, "the limit of 2 bytes was reached");
}

TEST_F(PolicyRunTest, FailingActionsSuspendTheRunPastSuspendErrorPct) {
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) names.push_back("f" + std::to_string(i) + ".dat");
  const std::string root = Flat(names);
  Scan(root);
  Configure(R"yaml(
policies:
  check:
    default_action: {command: [/bin/false, "{path}"]}
    suspend_error_pct: 50%
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml");
  auto summary = Run("check");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->run.state, RunRecord::State::kSuspended);
  EXPECT_EQ(summary->run.failed, 10u) << "the error rate counts from the tenth action";
  EXPECT_EQ(summary->run.message, "10 of 10 actions failed, more than suspend_error_pct 50.000000%");
  // The actions journaled with them in one batch are recorded as not attempted.
  std::map<std::string, int> results;
  for (const JournalAction& a : Actions()) {
    ++results[a.result == "command `/bin/false " + a.path + "` exited with status 1" ? "exited 1" : a.result];
  }
  EXPECT_EQ(results, (std::map<std::string, int>{{"exited 1", 10}, {"not attempted: the run was suspended", 20}}));
}

TEST_F(PolicyRunTest, CommandsGetWholeArgumentsAndAreKilledPastTheirTimeout) {
  const std::string root = Flat({"with space.dat", "slow.bin"});
  Scan(root);
  const std::string log = mount_.path() + "/log";
  Configure(Replace(R"yaml(
fileclasses:
  dat: "name == '*.dat'"
  bin: "name == '*.bin'"
policies:
  note:
    default_action: {command: [/bin/sh, -c, 'printf "%s|%s|%s\n" "$1" "$2" "$FATHOM_RULE" >> LOG', sh, "{path}", "{name}:{size}"]}
    rules:
      - name: dat
        target_fileclass: dat
      - name: slow
        target_fileclass: bin
        action: {command: [/bin/sleep, "5"], timeout: 1s}
)yaml",
                    "LOG", log));
  auto summary = Run("note");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(testing::ReadFile(log), root + "/with space.dat|with space.dat:1|dat\n");
  std::map<std::string, std::string> result;
  for (const JournalAction& a : Actions()) result[a.rule] = a.result;
  EXPECT_EQ(result["slow"], "command `/bin/sleep 5` did not finish within 1 s: killed");
  EXPECT_EQ(summary->run.actions, 1u);
  EXPECT_EQ(summary->run.failed, 1u);
}

TEST_F(PolicyRunTest, ACopyIsVerifiedAndKeepsModeOwnerAndTimes) {
  const std::string root = Flat({});
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7919 % 251);
  testing::WriteFile(root + "/big.dat", data);
  ASSERT_EQ(chmod((root + "/big.dat").c_str(), 0640), 0);
  ASSERT_EQ(chown((root + "/big.dat").c_str(), 12345, 23456), 0);
  struct timespec t[2] = {{1'600'000'000, 5}, {1'500'000'000, 7}};
  ASSERT_EQ(utimensat(AT_FDCWD, (root + "/big.dat").c_str(), t, 0), 0);
  Scan(root);
  const std::string archive = mount_.path() + "/archive";
  Configure(Replace(R"yaml(
policies:
  archive:
    default_action: {copy: {to: ARCHIVE, verify: true}}
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml",
                    "ARCHIVE", archive));
  auto summary = Run("archive");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  const std::string copy = archive + root + "/big.dat";
  EXPECT_EQ(testing::ReadFile(copy), data);
  struct stat st {};
  ASSERT_EQ(stat(copy.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_uid, 12345u);
  EXPECT_EQ(st.st_gid, 23456u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1'500'000'000);
  EXPECT_EQ(st.st_mtim.tv_nsec, 7);
  Captured sum = RunCaptured({"/usr/bin/sha256sum", copy}, "/");
  ASSERT_EQ(sum.exit_code, 0) << sum.err;
  const auto actions = Actions();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].result, "sha256:" + sum.out.substr(0, 64));
  EXPECT_EQ(actions[0].destination, copy);
  EXPECT_EQ(testing::ReadFile(root + "/big.dat"), data) << "a copy leaves the original";
}

TEST_F(PolicyRunTest, AMoveToATrashKeepsThePathNeverReplacesAndIsJournaled) {
  const std::string root = Flat({"a.dat", "b.dat"});
  Scan(root);
  const std::string trash = mount_.path() + "/trash";
  testing::MakeDirs(trash + root);
  testing::WriteFile(trash + root + "/b.dat", "an earlier b.dat");
  Configure(Replace(R"yaml(
policies:
  trash:
    default_action: {move: TRASH}
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml",
                    "TRASH", trash));
  auto summary = Run("trash");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(testing::ReadFile(trash + root + "/a.dat"), "x");
  EXPECT_EQ(testing::ReadFile(trash + root + "/b.dat"), "an earlier b.dat");
  EXPECT_EQ(testing::ReadFile(trash + root + "/b.dat.1"), "x");
  ActionQuery q;
  q.path = root + "/b.dat";
  const auto actions = Actions(q);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].action, "move");
  EXPECT_EQ(actions[0].destination, trash + root + "/b.dat.1");
  EXPECT_EQ(actions[0].state, JournalAction::State::kDone);
}

TEST_F(PolicyRunTest, PreAndPostRunCommandsRunAroundTheActionsAndAFailingPreCommandStopsTheRun) {
  const std::string root = Flat({"a.dat"});
  Scan(root);
  const std::string log = mount_.path() + "/log";
  Configure(Replace(R"yaml(
policies:
  ok:
    default_action: {command: [/bin/sh, -c, 'echo act >> LOG']}
    pre_run_command: [/bin/sh, -c, 'echo pre >> LOG']
    post_run_command: [/bin/sh, -c, 'echo post >> LOG']
    rules: [{name: dat, condition: "name == '*.dat'"}]
  refused:
    default_action: delete
    pre_run_command: [/bin/sh, -c, 'exit 3']
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml",
                    "LOG", log));
  auto ok = Run("ok");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(testing::ReadFile(log), "pre\nact\npost\n");
  auto refused = Run("refused");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "command `/bin/sh -c exit 3` exited with status 3");
  EXPECT_EQ(access((root + "/a.dat").c_str(), F_OK), 0);
  auto journal = Journal(true);
  std::vector<RunRecord> runs;
  ASSERT_TRUE(journal->Runs("refused", 0, [&](const RunRecord& r) {
                       runs.push_back(r);
                       return true;
                     }).ok());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, RunRecord::State::kFailed);
  EXPECT_EQ(runs[0].message, "pre_run_command: command `/bin/sh -c exit 3` exited with status 3");
}

// A runner killed between journaling an action and journaling its end: the next run of the
// policy continues that run, settles each started action from the file system, and acts on
// what is left, so that every entry is acted upon exactly once.
TEST_F(PolicyRunTest, ARunKilledMidActionIsResumedAndSettledFromTheFileSystem) {
  const std::string root = Flat({"done.dat", "undone.dat", "later.dat"});
  Scan(root);
  Configure(kDeleteAll);
  struct stat done {}, undone {};
  ASSERT_EQ(lstat((root + "/done.dat").c_str(), &done), 0);
  ASSERT_EQ(lstat((root + "/undone.dat").c_str(), &undone), 0);
  {
    auto journal = Journal();
    RunRecord run;
    run.policy = "purge";
    run.started_ns = 1;
    ASSERT_TRUE(journal->BeginRun(run).ok());
    for (const auto& [name, st] : {std::pair{"done.dat", done}, std::pair{"undone.dat", undone}}) {
      JournalAction a;
      a.run = run.id;
      a.policy = "purge";
      a.rule = "dat";
      a.action = "delete";
      a.path = root + "/" + name;
      a.dev = st.st_dev;
      a.ino = st.st_ino;
      ASSERT_TRUE(journal->Started(std::span(&a, 1)).ok());
    }
  }
  ASSERT_EQ(unlink((root + "/done.dat").c_str()), 0);  // it took effect before the kill

  std::vector<std::string> notes;
  auto summary = Run("purge", {}, &notes);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(summary->resumed);
  EXPECT_EQ(summary->resumed_actions, 2u);
  std::sort(notes.begin(), notes.end());
  EXPECT_EQ(notes, (std::vector<std::string>{"delete " + root + "/later.dat", "delete " + root + "/undone.dat"}));
  EXPECT_EQ(summary->run.actions, 3u);
  std::map<std::string, std::vector<std::string>> by_path;
  for (const JournalAction& a : Actions()) {
    by_path[a.path].push_back(std::string(StateName(a.state)) + ": " + a.result);
  }
  EXPECT_EQ(by_path[root + "/done.dat"], std::vector<std::string>{"done: took effect before the runner stopped"});
  EXPECT_EQ(by_path[root + "/undone.dat"],
            (std::vector<std::string>{"done: ", "failed: interrupted before it took effect; decided again"}));
  EXPECT_EQ(by_path[root + "/later.dat"], std::vector<std::string>{"done: "});
  auto journal = Journal(true);
  auto unfinished = journal->Unfinished("purge");
  ASSERT_TRUE(unfinished.ok());
  EXPECT_FALSE(unfinished->has_value());
}

// Two runners of one policy never run at once: the second is refused while the first holds
// the policy's lock, and runs once it is gone; another policy is not held up.
TEST_F(PolicyRunTest, ASecondRunnerOfAPolicyIsRefusedWhileTheFirstHoldsIt) {
  const std::string root = Flat({"a.dat"});
  Scan(root);
  Configure(R"yaml(
policies:
  purge:
    default_action: log
    rules: [{name: dat, condition: "name == '*.dat'"}]
  other:
    default_action: log
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml");
  auto first = Journal();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->Lock("purge").ok());
  auto refused = Run("purge");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "policy purge is already running on this catalog (another `fathom policy run`, or the daemon): wait for "
            "it to end, or stop it");
  auto other = Run("other");
  EXPECT_TRUE(other.ok()) << other.status().message();
  first.reset();
  auto after = Run("purge");
  EXPECT_TRUE(after.ok()) << after.status().message();
}

TEST_F(PolicyRunTest, TargetsNarrowTheRunToAUserAClassOrATree) {
  const std::string root = Flat({"a.dat", "b.dat"});
  testing::MakeDirs(root + "/sub");
  testing::WriteFile(root + "/sub/c.dat", "x");
  ASSERT_EQ(chown((root + "/b.dat").c_str(), 12345, 0), 0);
  Scan(root);
  Configure(R"yaml(
fileclasses:
  named_a: "name == 'a*'"
policies:
  purge:
    default_action: log
    rules: [{name: dat, condition: "name == '*.dat'"}]
)yaml");
  auto targeted = [&](const std::string& target) {
    RunOptions options;
    options.dry_run = true;
    options.target = target;
    std::vector<std::string> notes;
    auto summary = Run("purge", options, &notes);
    EXPECT_TRUE(summary.ok()) << summary.status().message();
    std::sort(notes.begin(), notes.end());
    return notes;
  };
  EXPECT_EQ(targeted("user:12345"), std::vector<std::string>{"would log " + root + "/b.dat"});
  EXPECT_EQ(targeted("class:named_a"), std::vector<std::string>{"would log " + root + "/a.dat"});
  EXPECT_EQ(targeted("path:" + root + "/sub"), std::vector<std::string>{"would log " + root + "/sub/c.dat"});
  RunOptions bad;
  bad.target = "class:nope";
  auto refused = Run("purge", bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "--target 'class:nope': test.yaml defines no file class \"nope\" (it defines: named_a)");
  bad.target = "colour:red";
  refused = Run("purge", bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "--target 'colour:red': expected user:USER, group:GROUP, ost:INDEX, pool:POOL, class:FILECLASS or path:DIR");
}

TEST_F(PolicyRunTest, CheckCountsEachRulesEntriesAndWhyOthersAreLeft) {
  const std::string root = Flat({"a.tmp", "b.tmp", "c.dat", "keep.tmp"});
  Scan(root);
  Configure(Replace(R"yaml(
fileclasses:
  tmp: "name == '*.tmp'"
policies:
  purge:
    default_action: delete
    ignore: ["name == 'keep*'"]
    rules:
      - {name: tmp, target_fileclass: tmp, condition: "size > 0"}
      - {name: rest, condition: "size > 1M"}
)yaml",
                    "ROOT", root));
  auto check = CheckPolicy(config_, *config_.Find("purge"), *catalog_, "", NowS() * 1'000'000'000);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_EQ(check->selected, 5u) << "the four files and the directory: every entry in scope";
  EXPECT_EQ(check->ignored, 1u);
  EXPECT_EQ(check->ignored_by, (std::map<std::string, uint64_t>{{"ignored: name == 'keep*'", 1}}));
  ASSERT_EQ(check->rules.size(), 2u);
  EXPECT_EQ(check->rules[0].act, 2u);
  EXPECT_EQ(check->rules[0].act_volume, 2);
  EXPECT_EQ(check->rules[1].act, 0u);
  EXPECT_EQ(check->rules[1].condition_false, 2u) << "c.dat and the directory";
}

}  // namespace
}  // namespace fathom::policy
