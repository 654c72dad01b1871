// The poll backend on a real file system: the first pass is silent, later changes come out as
// inotify's kinds (renames paired by cookie, ISDIR on directories), a replayed workload
// rebuilds the final tree, a pass longer than the interval is an OVERFLOW, "auto" leaves local
// file systems to the notifying backends.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "sources/poll/poll_source.h"
#include "sources/poll/snapshot.h"
#include "sources/poll/snapshot_diff.h"
#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

SourceWatcher PollWatcher(const std::string& root, const std::string& interval) {
  return SourceWatcher(PollSourceInfo(), {root}, true, kind::kDefault,
                       {{"poll.interval", interval}});
}

TEST(PollSourceTest, FirstPassIsSilentAndChangesComeAsInotifyKinds) {
  TempDir t;
  for (const char* f : {"w", "c", "r", "gone", "o", "dir/a", "dir/sub/b"}) {
    MakeDirs(t / "dir/sub");
    WriteFile(t / f, "1");
  }
  SourceWatcher w = PollWatcher(t.path(), "150ms");
  ASSERT_TRUE(w.Start().ok());
  EXPECT_TRUE(w.CollectQuiet(400ms).empty());

  WriteFile(t / "w", "longer");
  ASSERT_EQ(chmod((t / "c").c_str(), 0600), 0);
  ASSERT_EQ(chown((t / "o").c_str(), 65534, 65534), 0);
  Rename(t / "r", t / "r2");
  Rename(t / "dir", t / "dir2");
  MakeDirs(t / "new");
  WriteFile(t / "new/f", "");
  ASSERT_EQ(unlink((t / "gone").c_str()), 0);
  std::vector<Event> events = w.CollectQuiet(600ms);

  std::vector<std::string> got = Lines(events);
  std::sort(got.begin(), got.end());
  const std::string r = t.path() + " ";
  std::vector<std::string> want = {r + "ATTRIB /c",     r + "ATTRIB /o",
                                   r + "CREATE /new/f", r + "CREATE,ISDIR /new",
                                   r + "DELETE /gone",  r + "MODIFY /w",
                                   r + "MOVED_FROM /r", r + "MOVED_FROM,ISDIR /dir",
                                   r + "MOVED_TO /r2",  r + "MOVED_TO,ISDIR /dir2"};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].source, "poll");
    if (events[i].mask & kind::kMovedFrom) {
      ASSERT_LT(i + 1, events.size());
      EXPECT_TRUE(events[i + 1].mask & kind::kMovedTo);
      EXPECT_NE(events[i].cookie, 0u);
      EXPECT_EQ(events[i + 1].cookie, events[i].cookie);
    }
  }
}

TEST(PollSourceTest, ReplayedEventsRebuildTheTreeAfterAWorkloadOverSeveralPasses) {
  TempDir t;
  const std::string root = t / "tree";
  for (int d = 0; d < 6; ++d) {
    MakeDirs(root + "/d" + std::to_string(d) + "/inner");
    for (int f = 0; f < 4; ++f)
      WriteFile(root + "/d" + std::to_string(d) + "/f" + std::to_string(f), "x");
  }
  const std::set<std::string> initial = RealTree(root);
  // An interval no pass of this small tree outlasts even under the sanitizers on a loaded
  // machine: a pass longer than the interval is an OVERFLOW (rescan), which a replay cannot
  // rebuild from. The workload lasts about three intervals.
  SourceWatcher w = PollWatcher(root, "500ms");
  ASSERT_TRUE(w.Start().ok());
  w.StartBackground();

  std::mt19937 rng(7);
  auto pick_dir = [&] {
    std::vector<std::string> dirs{root};
    for (const auto& p : RealTree(root)) {
      struct stat st;
      if (lstat((root + p).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) dirs.push_back(root + p);
    }
    return dirs[rng() % dirs.size()];
  };
  auto pick_entry = [&]() -> std::string {
    std::set<std::string> all = RealTree(root);
    if (all.empty()) return "";
    auto it = all.begin();
    std::advance(it, static_cast<long>(rng() % all.size()));
    return root + *it;
  };
  for (int step = 0; step < 200; ++step) {
    const std::string name = "/n" + std::to_string(step);
    switch (rng() % 6) {
      case 0:
        WriteFile(pick_dir() + name, "new");
        break;
      case 1:
        MakeDirs(pick_dir() + name + "/child");
        break;
      case 2: {  // rename a file or a populated directory somewhere else (never into itself)
        const std::string from = pick_entry(), to_dir = pick_dir();
        if (!from.empty() && !to_dir.starts_with(from))
          rename(from.c_str(), (to_dir + name).c_str());
        break;
      }
      case 3: {
        const std::string victim = pick_entry();
        if (!victim.empty()) RemoveTree(victim);
        break;
      }
      case 4: {
        const std::string p = pick_entry();
        if (!p.empty()) chmod(p.c_str(), 0700);
        break;
      }
      case 5: {
        const std::string p = pick_entry();
        struct stat st;
        if (!p.empty() && lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode))
          WriteFile(p, "changed");
        break;
      }
    }
    if (step % 4 == 0) std::this_thread::sleep_for(30ms);
  }
  const std::set<std::string> final_tree = RealTree(root);
  // Two more passes than now: the first of them began after the workload ended, and its events
  // were handed out before the second one ended.
  const uint64_t passes = w.source().Stats().rescans;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (w.source().Stats().rescans < passes + 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  w.StopBackground();
  std::vector<Event> events = w.Snapshot();
  ASSERT_TRUE(w.source().Drain(events).ok());  // what the background drain had not taken yet
  EXPECT_EQ(w.source().Stats().overflows, 0u);
  const std::set<std::string> replayed = Replay(initial, events);
  EXPECT_EQ(replayed, final_tree) << TreeDifferences(final_tree, replayed);
  EXPECT_GT(w.source().Stats().rescans, 3u);
}

// Between two passes: a directory is renamed, the directory below it replaced by a new one of
// the same name, and another directory renamed into the new one. The old
// object's DELETE must not come after the new one is made: it would remove it.
TEST(PollSourceTest, ADirectoryRemadeUnderARenamedParentAndFilledByARenameReplaysExactly) {
  TempDir t;
  const std::string root = t / "tree";
  MakeDirs(root + "/a/child/old");
  MakeDirs(root + "/d0/inner");
  WriteFile(root + "/a/child/old/f", "x");
  const std::set<std::string> initial = RealTree(root);
  SourceWatcher w = PollWatcher(root, "300ms");
  ASSERT_TRUE(w.Start().ok());
  EXPECT_TRUE(w.CollectQuiet(500ms).empty());
  Rename(root + "/a", root + "/n125");
  MakeDirs(root + "/n125/made");  // made while the old one still holds its inode: a new object
  RemoveTree(root + "/n125/child");
  Rename(root + "/n125/made", root + "/n125/child");
  Rename(root + "/d0", root + "/n125/child/n160");
  const std::set<std::string> final_tree = RealTree(root);
  const std::vector<Event> events = w.CollectQuiet(900ms);
  EXPECT_EQ(Replay(initial, events), final_tree)
      << TreeDifferences(final_tree, Replay(initial, events));
}

TEST(PollSourceTest, PassLongerThanTheIntervalIsReportedAsOverflow) {
  TempDir t;
  MakeDirs(t / "many");
  for (int i = 0; i < 1000; ++i) WriteFile(t / ("many/f" + std::to_string(i)), "");
  SourceWatcher w = PollWatcher(t.path(), "1ms");
  ASSERT_TRUE(w.Start().ok());
  std::vector<Event> events =
      w.CollectUntil([](const std::vector<Event>& e) { return !e.empty(); }, 5s);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(Lines(events)[0], t.path() + " OVERFLOW /");
  EXPECT_GE(w.source().Stats().overflows, 1u);
}

TEST(PollSourceTest, AutoLeavesLocalFileSystemsToTheNotifyingBackends) {
  TempDir t;
  SourceRegistry registry;
  registry.Register(PollSourceInfo());
  SourceOptions options;
  options.roots = {t.path()};
  std::vector<std::string> log;
  auto created = registry.Create("auto", options, [&](const std::string& l) { log.push_back(l); });
  EXPECT_FALSE(created.ok());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "backend poll not used: " + t.path() +
                        " is on a file system whose changes the kernel notifies (give "
                        "--backend poll to scan it anyway)");
  EXPECT_TRUE(registry.Create("poll", options, [](const std::string&) {}).ok());
}

TEST(PollSourceTest, BadIntervalIsRefusedWithAnExample) {
  SourceOptions options;
  options.settings = {{"poll.interval", "0"}};
  Status st = PollSourceInfo().check_settings(options);
  EXPECT_EQ(st.message(),
            "bad poll interval '0' (a positive duration such as 30s, 500ms, 2m or 1h)");
  options.settings = {{"poll.interval", "2m"}};
  EXPECT_TRUE(PollSourceInfo().check_settings(options).ok());
}

TEST(PollSourceTest, StopEndsAWaitAndTheSourceThreadPromptly) {
  TempDir t;
  SourceWatcher w = PollWatcher(t.path(), "1h");
  ASSERT_TRUE(w.Start().ok());
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    w.source().Stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(w.source().Wait(10s).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  stopper.join();
}

}  // namespace
}  // namespace fathom::testing

namespace fathom::poll_internal {
namespace {

using fathom::testing::MakeDirs;
using fathom::testing::RemoveTree;
using fathom::testing::TempDir;

struct Dir {
  std::string name;
  uint64_t ino;
  uint64_t file_ino;  // of the one file it holds, "in-<name>"
};

// A snapshot of a root directory (ino 1) holding `dirs`.
Snapshot SnapshotOf(const std::string& root, const std::vector<Dir>& dirs) {
  SnapshotBuilder builder;
  scan::ScanChunk top;
  top.path = root;
  top.attrs.mode = S_IFDIR | 0755;
  top.attrs.ino = 1;
  top.dir_token = 1;
  top.first = top.last = true;
  uint64_t token = 2;
  std::vector<scan::ScanChunk> below;
  for (const auto& [name, ino, file_ino] : dirs) {
    scan::ScanEntry e;
    e.name = name;
    e.attrs.mode = S_IFDIR | 0755;
    e.attrs.ino = ino;
    e.attrs.nlink = 2;
    e.dir_token = token;
    top.entries.push_back(e);
    scan::ScanChunk c;
    c.path = root + "/" + name;
    c.attrs = e.attrs;
    c.dir_token = token++;
    c.parent_token = 1;
    c.first = c.last = true;
    scan::ScanEntry file;
    file.name = "in-" + name;
    file.attrs.mode = S_IFREG | 0644;
    file.attrs.ino = file_ino;
    file.attrs.nlink = 1;
    c.entries.push_back(file);
    below.push_back(std::move(c));
  }
  builder.OnChunk(std::move(top));
  for (auto& c : below) builder.OnChunk(std::move(c));
  return builder.Take();
}

// Between two passes a directory is removed and a new one, made after the first pass, gets
// its inode number: that is a deletion and a creation, not a rename (which would carry the old
// directory's content to the new name). File systems without birth times are left as before.
TEST(PollSnapshotDiff, AnInodeNumberHandedToANewDirectoryIsNotARename) {
  TempDir t;
  const std::string root = t / "tree";
  MakeDirs(root + "/old");
  Snapshot before = SnapshotOf(root, {{"old", 77, 78}});
  before.set_ended_ns(NowNs());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the clock's coarse tick
  RemoveTree(root + "/old");
  MakeDirs(root + "/new");
  const Snapshot after = SnapshotOf(root, {{"new", 77, 79}});
  uint32_t cookie = 0;
  std::vector<Event> events;
  DiffSnapshots(before, after, 1, cookie, events);
  std::vector<std::string> got;
  for (const Event& e : events) got.push_back(KindNames(e.mask) + " " + e.path.substr(root.size()));
  EXPECT_EQ(got, (std::vector<std::string>{"DELETE /old/in-old", "DELETE,ISDIR /old", "CREATE,ISDIR /new",
                                           "CREATE /new/in-new"}));

  // The same objects seen by a pass that ended after the new directory was made: a rename.
  before.set_ended_ns(NowNs());
  events.clear();
  DiffSnapshots(before, after, 1, cookie, events);
  got.clear();
  for (const Event& e : events) got.push_back(KindNames(e.mask) + " " + e.path.substr(root.size()));
  EXPECT_EQ(got, (std::vector<std::string>{"MOVED_FROM,ISDIR /old", "MOVED_TO,ISDIR /new", "DELETE /new/in-old",
                                           "CREATE /new/in-new"}));
}

}  // namespace
}  // namespace fathom::poll_internal
