// find's engine on small trees with known answers: GNU's windows at exact boundaries (a
// fixed reference time, nanosecond times), size rounding, walk and -depth order, the index
// path (Select) against the walk, -prune/-quit/-count/-sort/-limit, actions that change the
// file system on a stale catalog, -exec batches, output files, Lustre tests, access tests
// for another user. The catalog is a real one filled by a scan of the tree (scanned_catalog.h),
// sometimes seen through AdjustedCatalog to play a stale or Lustre catalog.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "catalog/find/find.h"
#include "catalog/find/find_test_tree.h"
#include "catalog/find/scanned_catalog.h"
#include "support/temp_dir.h"

namespace fathom::catalog::find_testing {
namespace {

constexpr int64_t kSecond = 1000000000LL;
constexpr int64_t kDay = 86400 * kSecond;
constexpr int64_t kNow = 1700000000LL * kSecond + 123456789;  // fixed reference time

// Another catalog's view of the same tree: every node passes through `adjust`.
class AdjustedCatalog final : public Catalog {
 public:
  AdjustedCatalog(Catalog& inner, std::function<void(Node&)> adjust) : inner_(inner), adjust_(std::move(adjust)) {}
  Result<std::unique_ptr<Batch>> Begin() override { return inner_.Begin(); }
  Result<uint64_t> LastApplied(std::string_view s) override { return inner_.LastApplied(s); }
  Result<uint64_t> Commits() override { return inner_.Commits(); }
  Result<std::vector<std::string>> Pending(std::string_view s) override { return inner_.Pending(s); }
  Result<uint64_t> BeginScan(std::string_view r, bool resume) override { return inner_.BeginScan(r, resume); }
  Status FinishScan(uint64_t g, const std::function<void(uint64_t)>& p) override { return inner_.FinishScan(g, p); }
  Result<std::optional<Node>> Stat(std::string_view path) override {
    auto n = inner_.Stat(path);
    if (n.ok() && n->has_value()) adjust_(**n);
    return n;
  }
  Status Children(EntryId dir, const std::function<bool(const Node&)>& fn) override {
    return inner_.Children(dir, [&](const Node& n) { return fn(Adjusted(n)); });
  }
  Status Walk(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) override {
    return inner_.Walk(path, [&](const Visit& v) {
      Node n = Adjusted(v.node);
      return fn(Visit{n, v.path, v.depth});
    });
  }
  Result<std::vector<std::string>> Paths(EntryId id) override { return inner_.Paths(id); }
  Status Select(const Selection& s, const std::function<bool(const Visit&)>& fn) override {
    return inner_.Select(s, [&](const Visit& v) {
      Node n = Adjusted(v.node);
      return fn(Visit{n, v.path, v.depth});
    });
  }
  Result<uint64_t> CountSelected(const Selection& s, uint64_t at_most) override {
    return inner_.CountSelected(s, at_most);
  }
  Result<Totals> Subtree(EntryId d) override { return inner_.Subtree(d); }
  Result<Totals> Usage(EntryId d, bool c) override { return inner_.Usage(d, c); }
  Status Linked(EntryId d, const std::function<bool(const Node&, const std::vector<std::string>&)>& fn) override {
    return inner_.Linked(d, fn);
  }
  Result<std::vector<AcctRow>> Accounting() override { return inner_.Accounting(); }
  Status ForEachAttrs(const std::function<void(const Attrs&)>& fn) override { return inner_.ForEachAttrs(fn); }
  Status ForEachSubtree(const std::function<void(EntryId, const Totals&)>& fn) override {
    return inner_.ForEachSubtree(fn);
  }
  Status Removed(std::string_view p, int64_t s, const std::function<bool(const RemovedEntry&)>& fn) override {
    return inner_.Removed(p, s, fn);
  }
  Result<CatalogInfo> Info() override { return inner_.Info(); }
  Result<RecountReport> Recount(bool r) override { return inner_.Recount(r); }

 private:
  Node Adjusted(const Node& n) {
    Node copy = n;
    adjust_(copy);
    return copy;
  }
  Catalog& inner_;
  std::function<void(Node&)> adjust_;
};

class FindEngine : public ::testing::Test {
 protected:
  std::string Path(const std::string& rel) const { return dir_.path() + "/" + rel; }

  void File(const std::string& rel, int64_t size = 0, int64_t mtime_ns = kNow) {
    int fd = open(Path(rel).c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << rel;
    ASSERT_EQ(ftruncate(fd, size), 0);
    close(fd);
    SetMtime(rel, mtime_ns);
  }
  void Dir(const std::string& rel) { ASSERT_EQ(mkdir(Path(rel).c_str(), 0755), 0) << rel; }
  void SetMtime(const std::string& rel, int64_t mtime_ns) {
    timespec ts[2] = {{static_cast<time_t>(mtime_ns / kSecond), mtime_ns % kSecond},
                      {static_cast<time_t>(mtime_ns / kSecond), mtime_ns % kSecond}};
    ASSERT_EQ(utimensat(AT_FDCWD, Path(rel).c_str(), ts, AT_SYMLINK_NOFOLLOW), 0) << rel;
  }

  // Runs find in the temp dir at kNow; returns stdout (and keeps stderr and the status).
  std::string Find(std::vector<std::string> args, Catalog* catalog = nullptr,
                   std::optional<uint32_t> uid = std::nullopt, std::vector<uint32_t> gids = {}) {
    ScannedCatalog live(dir_.path());
    std::ostringstream out, err;
    find::RunOptions options;
    options.cwd = dir_.path();
    options.now_ns = kNow;
    options.select_below = select_below_;
    options.config = config_;
    if (uid) {
      options.uid = uid;
      options.gids = gids;
    }
    status_ = find::RunFind(args, catalog ? *catalog : live, out, err, options);
    err_ = err.str();
    return out.str();
  }
  std::string SortedFind(std::vector<std::string> args) {
    std::string joined;
    for (const auto& r : SortedRecords(Find(std::move(args)))) joined += r + "\n";
    return joined;
  }

  testing::TempDir dir_;
  int status_ = -1;
  std::string err_;
  uint64_t select_below_ = find::RunOptions{}.select_below;
  const policy::PolicyConfig* config_ = nullptr;
};

TEST_F(FindEngine, DayWindowsTruncateTheAgeAtExactNanosecondBoundaries) {
  Dir("t");
  File("t/age0", 0, kNow);
  File("t/day-1ns", 0, kNow - kDay + 1);
  File("t/day", 0, kNow - kDay);
  File("t/2days-1ns", 0, kNow - 2 * kDay + 1);
  File("t/2days", 0, kNow - 2 * kDay);
  File("t/future", 0, kNow + 1);
  std::vector<std::string> base = {"t", "-type", "f"};
  auto run = [&](std::string test, std::string n) {
    auto args = base;
    args.insert(args.end(), {test, n, "-printf", "%f\n"});
    return SortedFind(args);
  };
  EXPECT_EQ(run("-mtime", "0"), "age0\nday-1ns\n");
  EXPECT_EQ(run("-mtime", "1"), "2days-1ns\nday\n");
  EXPECT_EQ(run("-mtime", "+0"), "2days\n2days-1ns\nday\n");
  EXPECT_EQ(run("-mtime", "+1"), "2days\n");
  EXPECT_EQ(run("-mtime", "-1"), "age0\nday-1ns\nfuture\n");
  EXPECT_EQ(run("-mtime", "-0"), "future\n");
}

TEST_F(FindEngine, MinuteWindowsRoundTheAgeUpAtExactBoundaries) {
  Dir("t");
  const int64_t minute = 60 * kSecond;
  File("t/age0", 0, kNow);
  File("t/1min", 0, kNow - minute);
  File("t/1min+1ns", 0, kNow - minute - 1);
  File("t/2min", 0, kNow - 2 * minute);
  File("t/future", 0, kNow + 1);
  auto run = [&](std::string n) { return SortedFind({"t", "-type", "f", "-mmin", n, "-printf", "%f\n"}); };
  EXPECT_EQ(run("0"), "age0\nfuture\n");
  EXPECT_EQ(run("1"), "1min\n");
  EXPECT_EQ(run("2"), "1min+1ns\n2min\n");
  EXPECT_EQ(run("+1"), "1min+1ns\n2min\n");
  EXPECT_EQ(run("-1"), "age0\nfuture\n");
}

TEST_F(FindEngine, DaystartCountsFromTheStartOfTomorrowForTheTestsAfterIt) {
  time_t t = static_cast<time_t>(kNow / kSecond) + 86400;
  std::tm tm{};
  localtime_r(&t, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;
  int64_t tomorrow = static_cast<int64_t>(mktime(&tm)) * kSecond;
  Dir("t");
  File("t/today", 0, tomorrow - 1);               // age under a day from tomorrow's start
  File("t/yesterday-end", 0, tomorrow - kDay);    // exactly one day
  File("t/yesterday-start", 0, tomorrow - 2 * kDay + 1);
  EXPECT_EQ(SortedFind({"t", "-type", "f", "-daystart", "-mtime", "0", "-printf", "%f\n"}), "today\n");
  EXPECT_EQ(SortedFind({"t", "-type", "f", "-daystart", "-mtime", "1", "-printf", "%f\n"}),
            "yesterday-end\nyesterday-start\n");
  // Tests before -daystart keep the reference time: only today's midnight is under a day old.
  EXPECT_EQ(SortedFind({"t", "-type", "f", "-mtime", "0", "-daystart", "-printf", "%f\n"}), "yesterday-end\n");
}

TEST_F(FindEngine, NewerComparesNanoseconds) {
  Dir("t");
  File("t/ref", 0, kNow - 5);
  File("t/same", 0, kNow - 5);
  File("t/later", 0, kNow - 4);
  EXPECT_EQ(SortedFind({"t", "-type", "f", "-newer", "t/ref", "-printf", "%f\n"}), "later\n");
  EXPECT_EQ(SortedFind({"t", "-type", "f", "!", "-newer", "t/ref", "-printf", "%f\n"}), "ref\nsame\n");
}

TEST_F(FindEngine, SizeRoundsUpToItsUnit) {
  Dir("t");
  for (int64_t s : {0, 1, 512, 513, 1024, 1025, 1048576, 1048577}) File("t/s" + std::to_string(s), s);
  auto run = [&](std::string n) { return SortedFind({"t", "-type", "f", "-size", n, "-printf", "%s\n"}); };
  EXPECT_EQ(run("-1M"), "0\n");
  EXPECT_EQ(run("1M"), "1\n1024\n1025\n1048576\n512\n513\n");
  EXPECT_EQ(run("+1M"), "1048577\n");
  EXPECT_EQ(run("1"), "1\n512\n");
  EXPECT_EQ(run("2"), "1024\n513\n");
  EXPECT_EQ(run("0"), "0\n");
  EXPECT_EQ(run("-2"), "0\n1\n512\n");
  EXPECT_EQ(run("1k"), "1\n1024\n512\n513\n");
  EXPECT_EQ(run("513c"), "513\n");
  EXPECT_EQ(run("+512c"), "1024\n1025\n1048576\n1048577\n513\n");
}

TEST_F(FindEngine, WalksInPreOrderWithNamesInByteOrderAndPostOrderWithDepth) {
  Dir("t");
  Dir("t/b");
  File("t/b/z");
  File("t/B");
  File("t/a b");
  File("t/a.b");
  Dir("t/a");
  File("t/a/c");
  EXPECT_EQ(Find({"t"}), "t\nt/B\nt/a\nt/a/c\nt/a b\nt/a.b\nt/b\nt/b/z\n");
  EXPECT_EQ(Find({"t", "-depth"}), "t/B\nt/a/c\nt/a\nt/a b\nt/a.b\nt/b/z\nt/b\nt\n");
  EXPECT_EQ(Find({"t", "-depth", "-maxdepth", "1"}), "t/B\nt/a\nt/a b\nt/a.b\nt/b\nt\n");
  EXPECT_EQ(Find({"t", "-mindepth", "2"}), "t/a/c\nt/b/z\n");
  EXPECT_EQ(Find({"t", "-name", "a", "-prune", "-o", "-print"}), "t\nt/B\nt/a b\nt/a.b\nt/b\nt/b/z\n");
  EXPECT_EQ(Find({"t", "-name", "a", "-prune"}), "t/a\n");
  EXPECT_EQ(Find({"t", "-type", "f", "-print", "-quit"}), "t/B\n");
  EXPECT_EQ(Find({"t/b", "t/a", "-print0"}), std::string("t/b\0t/b/z\0t/a\0t/a/c\0", 20));
  EXPECT_EQ(status_, 0);
}

TEST_F(FindEngine, IndexedTestsSelectCandidatesAndPrintWhatTheWalkPrints) {
  Dir("t");
  Dir("t/d");
  Dir("t/d/e");
  for (const char* f : {"t/x", "t/d/y", "t/d/e/z", "other"}) File(f, 2000);
  File("t/d/small", 10);
  ASSERT_EQ(chown(Path("t/d/y").c_str(), 7, 7), 0);
  ASSERT_EQ(chown(Path("t/d/e/z").c_str(), 7, 8), 0);
  ASSERT_EQ(chown(Path("other").c_str(), 7, 7), 0);
  ASSERT_EQ(link(Path("t/d/y").c_str(), Path("t/y-link").c_str()), 0);
  struct Case {
    std::vector<std::string> selective;   // narrows a Selection
    std::vector<std::string> walking;     // the same set, not narrowable (top-level -o)
  };
  std::vector<Case> cases = {
      {{"t", "-uid", "7"}, {"t", "(", "-uid", "7", "-o", "-false", ")"}},
      {{"t", "-type", "f", "-size", "+1k", "-gid", "7"}, {"t", "(", "-type", "f", "-size", "+1k", "-gid", "7", "-o", "-false", ")"}},
      {{"t/d", "-mindepth", "1", "-maxdepth", "1", "-uid", "7"}, {"t/d", "-mindepth", "1", "-maxdepth", "1", "(", "-uid", "7", "-o", "-false", ")"}},
      {{"t", "-mtime", "-1", "-size", "-2"}, {"t", "(", "-mtime", "-1", "-size", "-2", "-o", "-false", ")"}},
      {{"t", "-newermt", "2000-01-01", "-type", "d"}, {"t", "(", "-newermt", "2000-01-01", "-type", "d", "-o", "-false", ")"}},
  };
  for (const auto& c : cases) {
    ScannedCatalog selecting(dir_.path()), walking(dir_.path());
    std::string selected = Find(c.selective, &selecting);
    std::string walked = Find(c.walking, &walking);
    EXPECT_EQ(selecting.select_calls, 1) << Describe(c.selective);
    EXPECT_EQ(selecting.walk_calls, 0) << Describe(c.selective);
    EXPECT_EQ(walking.select_calls, 0);
    EXPECT_FALSE(walked.empty()) << Describe(c.walking);
    EXPECT_EQ(SortedRecords(selected), SortedRecords(walked)) << Describe(c.selective);
  }
  ScannedCatalog catalog(dir_.path());
  EXPECT_EQ(SortedFind({"t", "-uid", "7"}), "t/d/e/z\nt/d/y\nt/y-link\n");
  // An action before the indexed test sees every entry: no selection then.
  Find({"t", "-printf", "", "-uid", "7"}, &catalog);
  EXPECT_EQ(catalog.select_calls, 0);
  EXPECT_EQ(catalog.walk_calls, 1);
}

TEST_F(FindEngine, IndexedTestsThatLeaveMuchOfTheCatalogWalkInstead) {
  Dir("t");
  for (int i = 0; i < 40; ++i) {
    std::string f = "t/f" + std::to_string(i);
    File(f.c_str(), 100);
    ASSERT_EQ(chown(Path(f).c_str(), i == 0 ? 9 : 7, 7), 0);
  }
  select_below_ = 2;  // 41 objects: selecting pays while fewer than 2 (41 / 16) are left
  ScannedCatalog most(dir_.path()), one(dir_.path());
  std::string all = Find({"t", "-uid", "7"}, &most);
  EXPECT_EQ(most.select_calls, 0);
  EXPECT_EQ(most.walk_calls, 1);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 39);
  EXPECT_EQ(Find({"t", "-uid", "9"}, &one), "t/f0\n");
  EXPECT_EQ(one.select_calls, 1);
  EXPECT_EQ(one.walk_calls, 0);
}

TEST_F(FindEngine, SelectedNameTestsSeeTheStartingPointAsGivenAndTheRestByTheirNames) {
  Dir("t");
  File("t/f0", 100);
  File("t/g0", 100);
  File("t/f1", 100);
  for (const char* own : {"t", "t/f0", "t/g0"}) ASSERT_EQ(chown(Path(own).c_str(), 9, 7), 0);
  ScannedCatalog selecting(dir_.path());
  EXPECT_EQ(Find({"t/.", "-uid", "9", "-name", "."}, &selecting), "t/.\n");
  EXPECT_EQ(selecting.select_calls, 1);
  EXPECT_EQ(selecting.walk_calls, 0);
  EXPECT_EQ(Find({"t/.", "-uid", "9", "-name", "f*"}), "t/./f0\n");
  EXPECT_EQ(Find({"t", "-uid", "9", "-name", "t"}), "t\n");
  EXPECT_EQ(Find({"t", "-uid", "9", "-iname", "G*"}), "t/g0\n");
  EXPECT_EQ(Find({"t", "-uid", "9", "-mindepth", "1", "-name", "t"}), "");
  EXPECT_EQ(Find({"t", "-uid", "9", "(", "-name", "f*", "-o", "-name", "g*", ")"}), "t/f0\nt/g0\n");
}

TEST_F(FindEngine, ClassSelectsTheMembersOfAFileClassOfTheConfiguration) {
  Dir("t");
  Dir("t/keep");
  File("t/a.tmp", 100);
  File("t/b.tmp", 5000);
  File("t/keep/c.tmp", 5000);
  File("t/d.dat", 5000);
  auto config = policy::ParsePolicyConfig(
      "fileclasses:\n"
      "  tmp: \"type == file and name == '*.tmp'\"\n"
      "  big: \"type == file and size > 1K\"\n"
      "  kept: \"tree == " + Path("t/keep") + "\"\n"
      "  purge: {inter: [tmp, big, loose]}\n"
      "  loose: {not: kept}\n",
      "classes.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  config_ = &config.value();
  EXPECT_EQ(Find({"t", "-class", "tmp"}), "t/a.tmp\nt/b.tmp\nt/keep/c.tmp\n");
  EXPECT_EQ(Find({"t", "-class", "purge"}), "t/b.tmp\n");
  EXPECT_EQ(Find({"t", "-class", "big", "-not", "-class", "tmp"}), "t/d.dat\n");
  EXPECT_EQ(Find({"t", "-class", "nope"}), "");
  EXPECT_EQ(status_, 1);
  EXPECT_EQ(err_, "fathom find: -class: classes.yaml defines no file class \"nope\" (it defines: big, kept, loose, "
                  "purge, tmp)\n");
  config_ = nullptr;
  EXPECT_EQ(Find({"t", "-class", "tmp"}), "");
  EXPECT_EQ(err_, "fathom find: -class: no file classes: give the policy configuration that defines \"tmp\" with "
                  "--config FILE\n");
}

TEST_F(FindEngine, CountSortAndLimitAreFathomsExtras) {
  Dir("t");
  File("t/b", 300, kNow - 3 * kSecond);
  File("t/a", 100, kNow - 1 * kSecond);
  File("t/c", 200, kNow - 2 * kSecond);
  EXPECT_EQ(Find({"t", "-type", "f", "-count"}), "3\n");
  EXPECT_EQ(Find({"t", "-count"}), "4\n");
  EXPECT_EQ(Find({"t", "-type", "f", "-sort", "size"}), "t/a\nt/c\nt/b\n");
  EXPECT_EQ(Find({"t", "-type", "f", "-rsort", "size"}), "t/b\nt/c\nt/a\n");
  EXPECT_EQ(Find({"t", "-type", "f", "-sort", "mtime"}), "t/b\nt/c\nt/a\n");
  EXPECT_EQ(Find({"t", "-rsort", "name"}), "t\nt/c\nt/b\nt/a\n");
  EXPECT_EQ(Find({"t", "-type", "f", "-sort", "size", "-limit", "2"}), "t/a\nt/c\n");
  EXPECT_EQ(Find({"t", "-type", "f", "-limit", "1"}), "t/a\n");
}

TEST_F(FindEngine, DeleteSkipsWhatTheCatalogNoLongerDescribesAndRemovesTheRestDepthFirst) {
  Dir("d");
  Dir("d/sub");
  File("d/sub/b");
  File("d/a");
  File("d/stale");
  ScannedCatalog live(dir_.path());
  // The catalog's idea of d/stale is an older object (another inode).
  AdjustedCatalog stale(live, [](Node& n) {
    if (n.name == "stale") n.attrs.ino += 1000000;
  });
  EXPECT_EQ(Find({"d", "-delete"}, &stale), "");
  EXPECT_EQ(access(Path("d/stale").c_str(), F_OK), 0);
  EXPECT_NE(access(Path("d/a").c_str(), F_OK), 0);
  EXPECT_NE(access(Path("d/sub").c_str(), F_OK), 0);
  EXPECT_EQ(err_,
            "fathom find: -delete: skipping 'd/stale': it is no longer what the catalog recorded (the catalog "
            "is behind the file system; let it catch up or rescan)\n"
            "fathom find: cannot delete 'd': Directory not empty\n");
  EXPECT_EQ(status_, 1);
}

TEST_F(FindEngine, ExecRunsOncePerFileOrInBatchesAndReportsFailuresAsGnu) {
  Dir("t");
  File("t/a");
  File("t/b");
  std::string log = Path("log");
  Find({"t", "-type", "f", "-exec", "sh", "-c", "echo \"$#:$*\" >> " + log, "sh", "{}", "+"});
  EXPECT_EQ(status_, 0);
  Find({"t", "-type", "f", "-exec", "sh", "-c", "echo \"one:$1\" >> " + log, "sh", "{}", ";"});
  Find({"t", "-type", "f", "-execdir", "sh", "-c", "echo \"dir:$1:$(basename \"$PWD\")\" >> " + log, "sh", "{}", ";"});
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "2:t/a t/b\none:t/a\none:t/b\ndir:./a:t\ndir:./b:t\n");
  // A failing command makes -exec ... ; false (the run goes on), and a failing batch makes
  // the exit status 1.
  EXPECT_EQ(Find({"t", "-type", "f", "-exec", "false", ";", "-o", "-printf", "%f\n"}), "t\na\nb\n");
  EXPECT_EQ(status_, 0);
  Find({"t", "-type", "f", "-exec", "false", "{}", "+"});
  EXPECT_EQ(status_, 1);
}

TEST_F(FindEngine, OkAsksOnStderrAndRunsOnlyWhatIsAnsweredYes) {
  Dir("t");
  File("t/a");
  File("t/b");
  File("t/c");
  {
    std::ofstream answers(Path("answers"));
    answers << "y\nno\nYes\n";
  }
  ASSERT_NE(std::freopen(Path("answers").c_str(), "r", stdin), nullptr);
  std::string log = Path("log");
  EXPECT_EQ(Find({"t", "-type", "f", "-ok", "sh", "-c", "echo \"$1\" >> " + log, "sh", "{}", ";", "-printf", "ran %f\n"}),
            "ran a\nran c\n");
  ASSERT_NE(std::freopen("/dev/null", "r", stdin), nullptr);
  EXPECT_EQ(err_, "< sh -c echo \"$1\" >> " + log + " sh t/a > ? < sh -c echo \"$1\" >> " + log +
                      " sh t/b > ? < sh -c echo \"$1\" >> " + log + " sh t/c > ? ");
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "t/a\nt/c\n");
}

TEST_F(FindEngine, OutputFilesAreCreatedEvenWhenNothingIsWrittenToThem) {
  Dir("t");
  File("t/a");
  EXPECT_EQ(Find({"t", "-false", "-fprint", Path("empty"), "-o", "-type", "f", "-fprint0", Path("list"), "-fprintf",
                  Path("list"), "[%f]", "-fls", Path("ls")}),
            "");
  auto read = [&](const std::string& name) {
    std::ifstream in(Path(name));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(access(Path("empty").c_str(), F_OK), 0);
  EXPECT_EQ(read("empty"), "");
  EXPECT_EQ(read("list"), std::string("t/a\0[a]", 7)) << "-fprint0 and -fprintf to one file share it";
  EXPECT_NE(read("ls").find(" t/a\n"), std::string::npos);
}

TEST_F(FindEngine, LustreTestsReadTheCatalogsLustreView) {
  Dir("t");
  File("t/a");
  File("t/b");
  File("t/c");
  ScannedCatalog live(dir_.path());
  AdjustedCatalog lustre(live, [](Node& n) {
    if (n.name != "a" && n.name != "b" && n.name != "c") return;  // no Lustre view
    LustreInfo info;
    info.fid = "[0x200000400:0x" + n.name + ":0x0]";
    info.mdt_index = n.name == "a" ? 0 : 1;
    info.pool = n.name == "c" ? "flash" : "";
    info.osts = n.name == "a" ? std::vector<uint32_t>{1, 3} : std::vector<uint32_t>{2};
    n.attrs.lustre = info;
  });
  EXPECT_EQ(Find({"t", "-ost", "3"}, &lustre), "t/a\n");
  EXPECT_EQ(Find({"t", "-ost", "2"}, &lustre), "t/b\nt/c\n");
  EXPECT_EQ(Find({"t", "-mdt", "1"}, &lustre), "t/b\nt/c\n");
  EXPECT_EQ(Find({"t", "-pool", "flash"}, &lustre), "t/c\n");
  EXPECT_EQ(Find({"t", "-fid", "[0x200000400:0xb:0x0]"}, &lustre), "t/b\n");
  EXPECT_EQ(Find({"t", "-ost", "3"}), "") << "no Lustre view: no match";
}

TEST_F(FindEngine, AccessTestsUseTheAskingUsersIdsAndTheModeBits) {
  Dir("t");
  File("t/mine");
  File("t/group");
  File("t/others");
  File("t/none");
  ASSERT_EQ(chown(Path("t/mine").c_str(), 1000, 0), 0);
  ASSERT_EQ(chmod(Path("t/mine").c_str(), 0700), 0);
  ASSERT_EQ(chown(Path("t/group").c_str(), 0, 1000), 0);
  ASSERT_EQ(chmod(Path("t/group").c_str(), 0060), 0);
  ASSERT_EQ(chmod(Path("t/others").c_str(), 0005), 0);
  ASSERT_EQ(chmod(Path("t/none").c_str(), 0770), 0);
  ASSERT_EQ(symlink("mine", Path("t/to-mine").c_str()), 0);
  ASSERT_EQ(symlink("missing", Path("t/dangling").c_str()), 0);
  auto as_user = [&](std::string test) {
    std::string out;
    for (const auto& r : SortedRecords(Find({"t", "-mindepth", "1", test}, nullptr, 1000, {1000}))) out += r + " ";
    return out;
  };
  EXPECT_EQ(as_user("-readable"), "t/group t/mine t/others t/to-mine ");
  EXPECT_EQ(as_user("-writable"), "t/group t/mine t/to-mine ");
  EXPECT_EQ(as_user("-executable"), "t/mine t/others t/to-mine ");
  // Root reads and writes everything that exists, and executes what has an x bit.
  EXPECT_EQ(SortedFind({"t", "-mindepth", "1", "!", "-readable"}), "t/dangling\n");
  EXPECT_EQ(SortedFind({"t", "-mindepth", "1", "-type", "f", "!", "-executable"}), "t/group\n");
}

}  // namespace
}  // namespace fathom::catalog::find_testing
