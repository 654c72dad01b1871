// The inotify source on real kernel events: Table II, recursion, scans after directory
// creation, kinds, roots, detection and stopping.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

// Runs `work` on a thread that only gets the CPU when the calling thread is idle: both are
// pinned to one CPU, the caller runs under SCHED_FIFO (tests run as root) and `work` under
// SCHED_IDLE. Each event `work` causes wakes the caller's Wait() at once, so the source sees
// every step as it happens (as it would beside a consumer that keeps up): a new directory is
// watched before the next step moves a file into it. `drain` runs on the calling thread until
// `work` has finished and `drain` says it is done.
void RunBesideDrainer(const std::function<void()>& work, const std::function<bool()>& drain) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &allowed)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
  int old_policy = 0;
  sched_param old_param{};
  ASSERT_EQ(pthread_getschedparam(pthread_self(), &old_policy, &old_param), 0);
  sched_param fifo{};
  fifo.sched_priority = 1;
  ASSERT_EQ(pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo), 0)
      << "needs CAP_SYS_NICE (root)";
  std::atomic<bool> finished{false};
  std::thread worker([&] {
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    work();
    finished = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (;;) {
    const bool done = drain();
    if ((done && finished) || std::chrono::steady_clock::now() >= deadline) break;
  }
  worker.join();
  EXPECT_EQ(pthread_setschedparam(pthread_self(), old_policy, &old_param), 0);
  EXPECT_EQ(pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed), 0);
}

TEST(InotifySource, EvaluateOutputScriptGivesTableII) {
  TempDir dir;
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  std::vector<Event> events;
  RunBesideDrainer([&] { RunEvaluateOutputScript(dir.path()); },
                   [&] {
                     EXPECT_TRUE(w.source().Wait(20ms).ok());
                     EXPECT_TRUE(w.source().Drain(events).ok());
                     return events.size() >= 10;
                   });
  auto rest = w.CollectQuiet(300ms);
  events.insert(events.end(), rest.begin(), rest.end());
  EXPECT_EQ(Lines(events), ExpectedTableII(dir.path()));
  for (const auto& e : events) {
    EXPECT_EQ(e.source, "inotify");
    EXPECT_GT(e.ts_ns, 1'600'000'000'000'000'000LL);
  }
}

TEST(InotifySource, NonRecursiveDoesNotReportInsideSubdirectories) {
  TempDir dir;
  MakeDirs(dir / "sub");
  Watcher w({dir.path()}, /*recursive=*/false);
  ASSERT_TRUE(w.Start().ok());
  EXPECT_EQ(w.source().Stats().watches, 1u);
  WriteFile(dir / "sub/inner", "x");
  MakeDirs(dir / "newdir");
  WriteFile(dir / "newdir/deep", "");
  WriteFile(dir / "top", "");
  auto events = w.CollectQuiet();
  EXPECT_EQ(Lines(events), (std::vector<std::string>{dir.path() + " CREATE,ISDIR /newdir",
                                                     dir.path() + " CREATE /top",
                                                     dir.path() + " CLOSE_WRITE /top"}));
}

TEST(InotifySource, RecursiveReportsInsideExistingSubdirectories) {
  TempDir dir;
  MakeDirs(dir / "sub/deeper");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  EXPECT_EQ(w.source().Stats().watches, 3u);
  WriteFile(dir / "sub/deeper/inner", "");
  auto events = w.CollectQuiet();
  EXPECT_EQ(Lines(events),
            (std::vector<std::string>{dir.path() + " CREATE /sub/deeper/inner",
                                      dir.path() + " CLOSE_WRITE /sub/deeper/inner"}));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].path, dir / "sub/deeper/inner");
  EXPECT_EQ(events[0].root, dir.path());
}

// Counts CREATE events per relative path.
std::map<std::string, int> CreateCounts(const std::vector<Event>& events) {
  std::map<std::string, int> counts;
  for (const auto& e : events) {
    if (e.mask & kind::kCreate) ++counts[RelativePath(e.root, e.path)];
  }
  return counts;
}

TEST(InotifySource, NestedMkdirReportsEveryCreateExactlyOnce) {
  TempDir dir;
  Watcher w({dir.path()}, true, kind::kCreate);
  ASSERT_TRUE(w.Start().ok());
  w.StartBackground();
  constexpr int kIterations = 50;
  std::map<std::string, int> expected;
  for (int i = 0; i < kIterations; ++i) {
    const std::string top = "/i" + std::to_string(i);
    MakeDirs(dir.path() + top + "/a/b/c/d");
    WriteFile(dir.path() + top + "/a/b/c/d/f", "");
    for (const char* p : {"", "/a", "/a/b", "/a/b/c", "/a/b/c/d", "/a/b/c/d/f"})
      expected[top + p] = 1;
  }
  w.WaitBackground(
      [&](const std::vector<Event>& e) { return CreateCounts(e).size() >= expected.size(); });
  std::this_thread::sleep_for(200ms);  // room for a duplicate to show up
  w.StopBackground();
  auto events = w.Snapshot();
  EXPECT_EQ(CreateCounts(events), expected);
  for (const auto& e : events) {
    const bool is_file = e.path.ends_with("/f");
    EXPECT_EQ((e.mask & kind::kIsDir) != 0, !is_file) << Line(e);
  }
}

TEST(InotifySource, DirectoryFilledWhileItsWatchIsPlacedReportsEveryFileOnce) {
  TempDir dir;
  Watcher w({dir.path()}, true, kind::kCreate);
  ASSERT_TRUE(w.Start().ok());
  w.StartBackground();
  constexpr int kRounds = 5;
  constexpr int kFiles = 1000;
  std::map<std::string, int> expected;
  for (int r = 0; r < kRounds; ++r) {
    const std::string sub = "/burst" + std::to_string(r);
    expected[sub] = 1;
    for (int i = 0; i < kFiles; ++i) expected[sub + "/f" + std::to_string(i)] = 1;
    std::thread filler([&] {
      MakeDirs(dir.path() + sub);
      for (int i = 0; i < kFiles; ++i) WriteFile(dir.path() + sub + "/f" + std::to_string(i), "");
    });
    filler.join();
  }
  w.WaitBackground(
      [&](const std::vector<Event>& e) { return CreateCounts(e).size() >= expected.size(); });
  std::this_thread::sleep_for(200ms);
  w.StopBackground();
  EXPECT_EQ(CreateCounts(w.Snapshot()), expected);
}

TEST(InotifySource, MultipleRootsReportTheRootEachPathFallsUnder) {
  TempDir a;
  TempDir b;
  Watcher w({a.path(), b.path()});
  ASSERT_TRUE(w.Start().ok());
  WriteFile(a / "one", "");
  WriteFile(b / "two", "");
  auto events = w.CollectQuiet();
  EXPECT_EQ(Lines(events),
            (std::vector<std::string>{a.path() + " CREATE /one", a.path() + " CLOSE_WRITE /one",
                                      b.path() + " CREATE /two", b.path() + " CLOSE_WRITE /two"}));
}

TEST(InotifySource, ReadsAreReportedOnlyWhenAsked) {
  TempDir dir;
  WriteFile(dir / "file", "content");
  auto read_file = [&] {
    std::string buf(16, '\0');
    int fd = open((dir / "file").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_GT(read(fd, buf.data(), buf.size()), 0);
    close(fd);
  };
  {
    Watcher w({dir.path()});
    ASSERT_TRUE(w.Start().ok());
    read_file();
    EXPECT_TRUE(w.CollectQuiet(200ms).empty());
  }
  Watcher w({dir.path()}, true, kind::kAll);
  ASSERT_TRUE(w.Start().ok());
  read_file();
  EXPECT_EQ(Lines(w.CollectQuiet(200ms)),
            (std::vector<std::string>{dir.path() + " OPEN /file", dir.path() + " ACCESS /file",
                                      dir.path() + " CLOSE_NOWRITE /file"}));
}

TEST(InotifySource, SubdirectoryDeletionReportsOnlyTheParentsDelete) {
  TempDir dir;
  MakeDirs(dir / "sub");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  ASSERT_EQ(rmdir((dir / "sub").c_str()), 0);
  EXPECT_EQ(Lines(w.CollectQuiet()), std::vector<std::string>{dir.path() + " DELETE,ISDIR /sub"});
  EXPECT_EQ(w.source().Stats().watches, 1u);
}

TEST(InotifySource, RootDeletionReportsDeleteSelf) {
  TempDir parent;
  const std::string root = parent / "root";
  MakeDirs(root);
  Watcher w({root});
  ASSERT_TRUE(w.Start().ok());
  ASSERT_EQ(rmdir(root.c_str()), 0);
  auto events = w.CollectQuiet();
  EXPECT_EQ(Lines(events), std::vector<std::string>{root + " DELETE_SELF /"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].path, root);
  EXPECT_EQ(w.source().Stats().watches, 0u);
}

TEST(InotifySource, MovedRootReportsMoveSelfAndIsNoLongerWatched) {
  TempDir parent;
  const std::string root = parent / "root";
  MakeDirs(root + "/sub");
  Watcher w({root});
  ASSERT_TRUE(w.Start().ok());
  Rename(root, parent / "elsewhere");
  EXPECT_EQ(Lines(w.CollectQuiet()), std::vector<std::string>{root + " MOVE_SELF /"});
  EXPECT_EQ(w.source().Stats().watches, 0u);
  WriteFile(parent / "elsewhere/sub/late", "");
  EXPECT_TRUE(w.CollectQuiet(200ms).empty());
}

TEST(InotifySource, DetectNamesAMissingRootOrAFile) {
  TempDir dir;
  WriteFile(dir / "file", "");
  SourceOptions missing;
  missing.roots = {dir / "absent"};
  Status s = InotifySourceInfo().detect(missing);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir / "absent"), std::string::npos) << s.message();
  SourceOptions file;
  file.roots = {dir / "file"};
  s = InotifySourceInfo().detect(file);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a directory"), std::string::npos) << s.message();
  SourceOptions good;
  good.roots = {dir.path()};
  EXPECT_TRUE(InotifySourceInfo().detect(good).ok());
  EXPECT_EQ(InotifySourceInfo().name, "inotify");
  EXPECT_EQ(InotifySourceInfo().priority, 10);
}

TEST(InotifySource, StopWakesAPendingWait) {
  TempDir dir;
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    w.source().Stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(w.source().Wait(10s).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  stopper.join();
  EXPECT_TRUE(w.source().Wait(10s).ok());  // returns at once after Stop()
}

TEST(InotifySource, StatsCountHandedOutEvents) {
  TempDir dir;
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  WriteFile(dir / "a", "1");
  auto events = w.CollectQuiet();
  EXPECT_EQ(events.size(), 3u);  // CREATE, MODIFY, CLOSE_WRITE
  EXPECT_EQ(w.source().Stats().events, events.size());
  EXPECT_EQ(w.source().Stats().unresolved, 0u);
}

}  // namespace
}  // namespace fathom::testing
