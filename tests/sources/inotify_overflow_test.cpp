// IN_Q_OVERFLOW on real kernel events: OVERFLOW is reported and the rescan brings a replaying
// consumer's view back to the real tree.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

size_t MaxQueuedEvents() {
  std::ifstream in("/proc/sys/fs/inotify/max_queued_events");
  size_t v = 0;
  in >> v;
  return v;
}

TEST(InotifyOverflow, OverflowIsReportedAndTheRescanConvergesToTheRealTree) {
  const size_t max_queued = MaxQueuedEvents();
  ASSERT_GT(max_queued, 0u);
  TempDir dir;
  constexpr int kDirs = 20;
  for (int d = 0; d < kDirs; ++d) {
    const std::string base = dir / ("d" + std::to_string(d));
    MakeDirs(base + "/sub/deeper");
    for (int i = 0; i < 5; ++i) WriteFile(base + "/sub/s" + std::to_string(i), "x");
    WriteFile(base + "/sub/deeper/z", "x");
  }
  const std::set<std::string> initial = RealTree(dir.path());
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());

  // Not draining: CREATE+MODIFY+CLOSE_WRITE per file, well past the queue's capacity.
  const size_t files_per_dir = max_queued / kDirs + 100;
  for (int d = 0; d < kDirs; ++d) {
    const std::string base = dir / ("d" + std::to_string(d));
    for (size_t i = 0; i < files_per_dir; ++i) WriteFile(base + "/f" + std::to_string(i), "data");
    for (size_t i = 0; i < files_per_dir; i += 2)
      std::filesystem::remove(base + "/f" + std::to_string(i));
    MakeDirs(base + "/new/inner");
    WriteFile(base + "/new/inner/n", "");
    std::filesystem::remove_all(base + "/sub");
    Rename(base + "/f1", base + "/renamed");
  }
  Rename(dir / "d0/new", dir / "d1/moved");
  Rename(dir / "d2", dir / "d3/d2");

  auto events = w.CollectQuiet(500ms);
  const SourceStats stats = w.source().Stats();
  EXPECT_GE(stats.overflows, 1u);
  EXPECT_GE(stats.rescans, 1u);
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [&](const Event& e) {
    return e.mask == kind::kOverflow && e.path == dir.path() && e.root == dir.path();
  }));
  EXPECT_EQ(Replay(initial, events), RealTree(dir.path()));

  // The rescan's watches work: changes inside directories it discovered are reported.
  WriteFile(dir / "d5/new/inner/late", "");
  MakeDirs(dir / "d3/d2/new/inner/later");
  auto after = w.CollectQuiet();
  EXPECT_EQ(Lines(after),
            (std::vector<std::string>{dir.path() + " CREATE /d5/new/inner/late",
                                      dir.path() + " CLOSE_WRITE /d5/new/inner/late",
                                      dir.path() + " CREATE,ISDIR /d3/d2/new/inner/later"}));
  events.insert(events.end(), after.begin(), after.end());
  EXPECT_EQ(Replay(initial, events), RealTree(dir.path()));
  EXPECT_EQ(w.source().Stats().unresolved, 0u);
}

// A rescan reconciles parents before children, so a directory moved up (or to a sibling
// reconciled first) is met at its new place while still known at its old one: its old place
// must be reported deleted and its contents reported at the new place.
TEST(InotifyOverflow, DirectoriesMovedDuringTheGapConvergeAtTheirNewPlaces) {
  const size_t max_queued = MaxQueuedEvents();
  ASSERT_GT(max_queued, 0u);
  TempDir dir;
  MakeDirs(dir / "a/b/up/sub");
  WriteFile(dir / "a/b/up/f1", "x");
  WriteFile(dir / "a/b/up/sub/g", "x");
  MakeDirs(dir / "a/across/inner");
  WriteFile(dir / "a/across/inner/h", "x");
  MakeDirs(dir / "z");
  MakeDirs(dir / "flood");
  const std::set<std::string> initial = RealTree(dir.path());
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());

  for (size_t i = 0; i < max_queued + 1000; ++i) WriteFile(dir / ("flood/f" + std::to_string(i)), "");
  Rename(dir / "a/b/up", dir / "up");             // up: the root is reconciled before a/b
  Rename(dir / "a/across", dir / "z/across");     // across: z and a are siblings
  WriteFile(dir / "up/sub/during", "x");          // changed after the move, also lost

  auto events = w.CollectQuiet(500ms);
  EXPECT_GE(w.source().Stats().overflows, 1u);
  EXPECT_EQ(Replay(initial, events), RealTree(dir.path()));

  WriteFile(dir / "up/sub/late", "");
  WriteFile(dir / "z/across/inner/late", "");
  auto after = w.CollectQuiet();
  EXPECT_EQ(Lines(after), (std::vector<std::string>{dir.path() + " CREATE /up/sub/late",
                                                   dir.path() + " CLOSE_WRITE /up/sub/late",
                                                   dir.path() + " CREATE /z/across/inner/late",
                                                   dir.path() + " CLOSE_WRITE /z/across/inner/late"}));
}

}  // namespace
}  // namespace fathom::testing
