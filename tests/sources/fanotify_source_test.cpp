// The fanotify source on real kernel events: Table II, subtree filtering, renamed and removed
// directories (with and without cache hits), own-process filtering, tmpfs, detection.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

void MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0) throw std::runtime_error("mkdir " + path);
}

std::vector<std::string> WithRoot(const std::string& root, const std::vector<std::string>& rel) {
  std::vector<std::string> out;
  for (const auto& r : rel) out.push_back(root + " " + r);
  return out;
}

// Table II from a freshly started source watching `dir`, plus anything extra that arrives.
std::vector<std::string> TableIIFrom(const std::string& dir,
                                     std::map<std::string, std::string> settings = {}) {
  FanWatcher w({dir}, true, std::move(settings));
  EXPECT_TRUE(w.Start().ok());
  EXPECT_TRUE(RunInChild([&] { RunEvaluateOutputScript(dir); }));
  auto events = w.Collect(ExpectedTableII(dir).size());
  auto extra = w.CollectQuiet(200ms);
  events.insert(events.end(), extra.begin(), extra.end());
  return Lines(events);
}

TEST(FanotifySource, EvaluateOutputScriptGivesTableII) {
  TempDir dir;
  EXPECT_EQ(TableIIFrom(dir.path()), ExpectedTableII(dir.path()));
}

TEST(FanotifySource, EvaluateOutputScriptGivesTableIIWithMovedFromMovedToPairing) {
  TempDir dir;
  EXPECT_EQ(TableIIFrom(dir.path(), {{"fanotify.use-rename", "false"}}),
            ExpectedTableII(dir.path()));
}

TEST(FanotifySource, EvaluateOutputScriptGivesTableIIOnTmpfs) {
  TempDir dir("/dev/shm");
  EXPECT_EQ(TableIIFrom(dir.path()), ExpectedTableII(dir.path()));
}

TEST(FanotifySource, RenameCookiesAreNonZeroAndShared) {
  TempDir dir;
  FanWatcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] { RunEvaluateOutputScript(dir.path()); }));
  auto events = w.Collect(ExpectedTableII(dir.path()).size());
  ASSERT_EQ(events.size(), 10u);
  EXPECT_NE(events[3].cookie, 0u);
  EXPECT_EQ(events[3].cookie, events[4].cookie);
  EXPECT_NE(events[6].cookie, 0u);
  EXPECT_EQ(events[6].cookie, events[7].cookie);
  EXPECT_NE(events[3].cookie, events[6].cookie);
  for (const auto& e : events) {
    EXPECT_EQ(e.source, "fanotify");
    EXPECT_EQ(e.root, dir.path());
  }
}

TEST(FanotifySource, NonRecursiveReportsOnlyTheRootsEntries) {
  TempDir dir;
  MakeDirs(dir / "sub/deeper");
  FanWatcher w({dir.path()}, false);
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(dir / "sub/deeper/x", "x");
    WriteFile(dir / "sub/y", "y");
    WriteFile(dir / "top", "t");
    MakeDir(dir / "marker");
  }));
  auto events = w.CollectThrough(dir / "marker");
  EXPECT_EQ(Lines(events), WithRoot(dir.path(), {"CREATE /top", "MODIFY /top",
                                                    "CLOSE_WRITE /top", "CREATE,ISDIR /marker"}));
}

TEST(FanotifySource, RecursiveReportsNestedEntries) {
  TempDir dir;
  MakeDirs(dir / "sub/deeper");
  FanWatcher w({dir.path()}, true);
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(dir / "sub/deeper/x", "");
    MakeDir(dir / "marker");
  }));
  auto events = w.CollectThrough(dir / "marker");
  EXPECT_EQ(Lines(events),
            WithRoot(dir.path(), {"CREATE /sub/deeper/x", "CLOSE_WRITE /sub/deeper/x",
                                  "CREATE,ISDIR /marker"}));
}

TEST(FanotifySource, EventsOutsideTheRootAreNotReported) {
  TempDir parent;
  const std::string root = parent / "root";
  const std::string sibling = parent / "root-sibling";  // shares the root's path as a prefix
  MakeDirs(root);
  MakeDirs(sibling);
  TempDir elsewhere;
  FanWatcher w({root});
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(sibling + "/a", "a");
    WriteFile(elsewhere / "b", "b");
    MakeDir(elsewhere / "d");
    Rename(elsewhere / "d", sibling + "/d");
    WriteFile(parent / "c", "c");
    MakeDir(root + "/marker");
  }));
  auto events = w.CollectThrough(root + "/marker");
  EXPECT_EQ(Lines(events), WithRoot(root, {"CREATE,ISDIR /marker"}));
}

TEST(FanotifySource, MovesAcrossTheRootsEdgeReportOneHalfAndTheContentsOfWhatCameIn) {
  TempDir parent;
  const std::string root = parent / "root";
  MakeDirs(root);
  MakeDirs(parent / "outside");
  WriteFile(parent / "outside/in.txt", "");
  MakeDirs(parent / "outside/dir-in");
  WriteFile(parent / "outside/dir-in/inner", "");
  FanWatcher w({root});
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    Rename(parent / "outside/in.txt", root + "/in.txt");
    Rename(parent / "outside/dir-in", root + "/dir-in");
    WriteFile(root + "/dir-in/inner", "more");  // a directory moved in is watched
    Rename(root + "/in.txt", parent / "outside/out.txt");
    MakeDir(root + "/marker");
  }));
  auto events = w.CollectThrough(root + "/marker");
  // A directory moved in is listed: its contents follow its MOVED_TO.
  EXPECT_EQ(Lines(events), WithRoot(root, {"MOVED_TO /in.txt", "MOVED_TO,ISDIR /dir-in",
                                              "CREATE /dir-in/inner",
                                              "MODIFY /dir-in/inner", "CLOSE_WRITE /dir-in/inner",
                                              "MOVED_FROM /in.txt", "CREATE,ISDIR /marker"}));
  for (const auto& e : events) EXPECT_EQ(e.cookie, 0u) << Line(e);
}

TEST(FanotifySource, OwnProcessEventsAreNotReported) {
  TempDir dir;
  FanWatcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  WriteFile(dir / "mine", "written by the watching process");
  ASSERT_TRUE(RunInChild([&] { MakeDir(dir / "marker"); }));
  auto events = w.CollectThrough(dir / "marker");
  EXPECT_EQ(Lines(events), WithRoot(dir.path(), {"CREATE,ISDIR /marker"}));
}

class FanotifyCacheSize : public ::testing::TestWithParam<std::string> {
 protected:
  std::map<std::string, std::string> Settings() const {
    return {{"fanotify.cache-size", GetParam()}};
  }
};

// A directory created after Start(): its location is learned from the event stream.
TEST_P(FanotifyCacheSize, RenamedDirectoryKeepsDescendantPaths) {
  TempDir dir;
  FanWatcher w({dir.path()}, true, Settings());
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    MakeDirs(dir / "a/inner");
    WriteFile(dir / "a/inner/f", "");
    Rename(dir / "a", dir / "b");
    WriteFile(dir / "b/inner/g", "");
    MakeDir(dir / "b/inner/new");
    Rename(dir / "b/inner", dir / "moved");
    WriteFile(dir / "moved/new/h", "");
    MakeDir(dir / "marker");
  }));
  auto events = w.CollectThrough(dir / "marker");
  EXPECT_EQ(Lines(events),
            WithRoot(dir.path(),
                     {"CREATE,ISDIR /a", "CREATE,ISDIR /a/inner", "CREATE /a/inner/f",
                      "CLOSE_WRITE /a/inner/f", "MOVED_FROM,ISDIR /a", "MOVED_TO,ISDIR /b",
                      "CREATE /b/inner/g", "CLOSE_WRITE /b/inner/g", "CREATE,ISDIR /b/inner/new",
                      "MOVED_FROM,ISDIR /b/inner", "MOVED_TO,ISDIR /moved", "CREATE /moved/new/h",
                      "CLOSE_WRITE /moved/new/h", "CREATE,ISDIR /marker"}));
}

// Directories that existed before Start() are found with open_by_handle_at; a later rename of
// an ancestor must move what was found below it.
TEST_P(FanotifyCacheSize, RenamedPreexistingDirectoryKeepsDescendantPaths) {
  TempDir dir;
  MakeDirs(dir / "A/B/C");
  FanWatcher w({dir.path()}, true, Settings());
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(dir / "A/B/C/f1", "");
    MakeDir(dir / "marker1");
  }));
  auto first = w.CollectThrough(dir / "marker1");
  EXPECT_EQ(Lines(first), WithRoot(dir.path(), {"CREATE /A/B/C/f1", "CLOSE_WRITE /A/B/C/f1",
                                                   "CREATE,ISDIR /marker1"}));
  ASSERT_TRUE(RunInChild([&] {
    Rename(dir / "A", dir / "Z");
    WriteFile(dir / "Z/B/C/f2", "");
    WriteFile(dir / "Z/B/f3", "");
    MakeDir(dir / "marker2");
  }));
  auto second = w.CollectThrough(dir / "marker2");
  EXPECT_EQ(Lines(second),
            WithRoot(dir.path(), {"MOVED_FROM,ISDIR /A", "MOVED_TO,ISDIR /Z", "CREATE /Z/B/C/f2",
                                  "CLOSE_WRITE /Z/B/C/f2", "CREATE /Z/B/f3", "CLOSE_WRITE /Z/B/f3",
                                  "CREATE,ISDIR /marker2"}));
}

// rm -r of a tree that existed before Start(): by the time the records are read most of its
// directories are gone, so their paths come from the records that remove them.
TEST_P(FanotifyCacheSize, DeepDeleteReportsEveryPath) {
  TempDir dir;
  std::set<std::string> expected;
  std::function<void(const std::string&, int)> build = [&](const std::string& rel, int depth) {
    MakeDirs(dir / rel);
    expected.insert("DELETE,ISDIR /" + rel);
    for (int f = 0; f < 2; ++f) {
      WriteFile(dir / (rel + "/f" + std::to_string(f)), "x");
      expected.insert("DELETE /" + rel + "/f" + std::to_string(f));
    }
    if (depth == 0) return;
    for (int d = 0; d < 3; ++d) build(rel + "/d" + std::to_string(d), depth - 1);
  };
  build("tree", 4);
  FanWatcher w({dir.path()}, true, Settings());
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    std::filesystem::remove_all(dir / "tree");
    MakeDir(dir / "marker");
  }));
  auto events = w.CollectThrough(dir / "marker", 30s);
  ASSERT_FALSE(events.empty());
  events.pop_back();
  std::vector<std::string> rel;
  for (const auto& e : events)
    rel.push_back(KindNames(e.mask) + " " + RelativePath(e.root, e.path));
  EXPECT_EQ(std::set<std::string>(rel.begin(), rel.end()), expected);
  EXPECT_EQ(rel.size(), expected.size());
  // Each directory's removal comes after everything removed inside it.
  for (size_t i = 0; i < rel.size(); ++i) {
    if (rel[i].rfind("DELETE,ISDIR ", 0) != 0) continue;
    const std::string prefix = rel[i].substr(std::string("DELETE,ISDIR ").size()) + "/";
    for (size_t j = i + 1; j < rel.size(); ++j) {
      EXPECT_EQ(rel[j].find(" " + prefix), std::string::npos) << rel[j] << " after " << rel[i];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DefaultAndOne, FanotifyCacheSize, ::testing::Values("65536", "1"));

TEST(FanotifySource, RemovedRootReportsDeleteSelfAndStops) {
  TempDir parent;
  const std::string root = parent / "root";
  MakeDirs(root);
  FanWatcher w({root});
  ASSERT_TRUE(w.Start().ok());
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(root + "/f", "");
    std::filesystem::remove_all(root);
    MakeDirs(root);  // same path, another directory: not the one watched
    WriteFile(root + "/g", "");
  }));
  auto events = w.CollectUntil([](const std::vector<Event>& e) {
    return !e.empty() && (e.back().mask & kind::kDeleteSelf);
  });
  auto extra = w.CollectQuiet(200ms);
  events.insert(events.end(), extra.begin(), extra.end());
  EXPECT_EQ(Lines(events),
            WithRoot(root, {"CREATE /f", "CLOSE_WRITE /f", "DELETE /f", "DELETE_SELF,ISDIR /"}));
}

TEST(FanotifySource, OneMarkPerFileSystem) {
  TempDir a;
  TempDir b;
  TempDir shm("/dev/shm");
  FanWatcher w({a.path(), b.path(), shm.path()});
  ASSERT_TRUE(w.Start().ok());
  EXPECT_EQ(w.source().Stats().watches, 2u);
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(a / "x", "");
    WriteFile(shm / "y", "");
    MakeDir(b / "marker");
  }));
  auto events = w.CollectThrough(b / "marker");
  EXPECT_EQ(Lines(events),
            (std::vector<std::string>{a.path() + " CREATE /x", a.path() + " CLOSE_WRITE /x",
                                      shm.path() + " CREATE /y", shm.path() + " CLOSE_WRITE /y",
                                      b.path() + " CREATE,ISDIR /marker"}));
}

TEST(FanotifySource, DetectAcceptsALocalDirectory) {
  TempDir dir;
  SourceOptions options;
  options.roots = {dir.path()};
  EXPECT_TRUE(FanotifySourceInfo().detect(options).ok());
  EXPECT_EQ(FanotifySourceInfo().name, "fanotify");
  EXPECT_EQ(FanotifySourceInfo().priority, 20);
}

TEST(FanotifySource, DetectRejectsAFileSystemWithoutFileHandles) {
  SourceOptions options;
  options.roots = {"/proc"};
  Status s = FanotifySourceInfo().detect(options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/proc"), std::string::npos) << s.message();
}

TEST(FanotifySource, BadCacheSizeIsRejected) {
  TempDir dir;
  SourceOptions options;
  options.roots = {dir.path()};
  options.settings["fanotify.cache-size"] = "lots";
  auto created = FanotifySourceInfo().create(options);
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.status().message().find("fanotify.cache-size"), std::string::npos);
}

TEST(FanotifySource, UnknownSettingInItsNamespaceIsRejected) {
  TempDir dir;
  SourceOptions options;
  options.roots = {dir.path()};
  options.settings["fanotify.cache-sise"] = "10";
  options.settings["inotify.other"] = "left to its backend";
  auto created = FanotifySourceInfo().create(options);
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.status().message().find("unknown setting fanotify.cache-sise"), std::string::npos)
      << created.status().message();
}

TEST(FanotifySource, BoundedQueueOverflowIsReportedForEachRoot) {
  TempDir a;
  TempDir b;
  FanWatcher w({a.path(), b.path()}, true, {{"fanotify.unlimited-queue", "false"}});
  ASSERT_TRUE(w.Start().ok());
  // 20,000 creates and deletes (40,000 events) without draining: over the 16,384-event queue.
  ASSERT_TRUE(RunInChild([&] {
    for (int i = 0; i < 20000; ++i) {
      const std::string f = a / ("f" + std::to_string(i));
      WriteFile(f, "");
      if (unlink(f.c_str()) != 0) throw std::runtime_error("unlink");
    }
  }));
  auto events = w.CollectQuiet();
  std::set<std::string> overflowed;
  for (const auto& e : events) {
    if (e.mask & kind::kOverflow) overflowed.insert(e.path);
  }
  EXPECT_EQ(overflowed, (std::set<std::string>{a.path(), b.path()}));
  EXPECT_GE(w.source().Stats().overflows, 1u);
  EXPECT_LT(events.size(), 40000u) << "events were dropped by the kernel";
}

TEST(FanotifySource, StopWakesWait) {
  TempDir dir;
  FanWatcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  w.source().Stop();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(w.source().Wait(5s).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}


// Each change names the process that made it and, while it is there, its process group: the
// rules' runner tells its own actions' changes by them.
TEST(FanotifySource, EventsNameTheWritingProcessAndItsGroup) {
  TempDir dir;
  FanWatcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    WriteFile(dir / "made-by-child", "x");
    char c;
    (void)!read(go[0], &c, 1);  // stays until the parent has read the events
    _exit(0);
  }
  auto events = w.CollectThrough(dir / "made-by-child");
  (void)!write(go[1], "x", 1);
  int status = 0;
  waitpid(child, &status, 0);
  close(go[0]);
  close(go[1]);
  ASSERT_FALSE(events.empty());
  const std::string expected = "{\"pid\":" + std::to_string(child) + ",\"pgid\":" + std::to_string(child) + "}";
  for (const Event& e : events) {
    if (e.path == dir / "made-by-child") {
      EXPECT_EQ(e.attrs, expected) << KindNames(e.mask);
    }
  }
}

}  // namespace
}  // namespace fathom::testing
