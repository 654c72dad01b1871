// Renames on real kernel events: pairing, directories moved within, out of and into the tree.
#include <unistd.h>

#include <filesystem>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

TEST(InotifyMoves, RenameHalvesAreAdjacentAndShareAFreshCookie) {
  TempDir dir;
  WriteFile(dir / "a", "");
  WriteFile(dir / "c", "");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  Rename(dir / "a", dir / "b");
  Rename(dir / "c", dir / "d");
  auto events = w.CollectQuiet();
  ASSERT_EQ(Lines(events),
            (std::vector<std::string>{dir.path() + " MOVED_FROM /a", dir.path() + " MOVED_TO /b",
                                      dir.path() + " MOVED_FROM /c", dir.path() + " MOVED_TO /d"}));
  EXPECT_NE(events[0].cookie, 0u);
  EXPECT_EQ(events[0].cookie, events[1].cookie);
  EXPECT_EQ(events[2].cookie, events[3].cookie);
  EXPECT_GT(events[2].cookie, events[0].cookie);
}

TEST(InotifyMoves, RenamedDirectoryKeepsDescendantPaths) {
  TempDir dir;
  MakeDirs(dir / "d/sub/deeper");
  WriteFile(dir / "d/sub/x", "");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  const uint64_t watches = w.source().Stats().watches;
  Rename(dir / "d", dir / "e");
  WriteFile(dir / "e/sub/y", "");
  MakeDirs(dir / "e/sub/deeper/z");
  Rename(dir / "e/sub/x", dir / "e/sub/deeper/x2");
  EXPECT_EQ(Lines(w.CollectQuiet()), (std::vector<std::string>{
                                         dir.path() + " MOVED_FROM,ISDIR /d",
                                         dir.path() + " MOVED_TO,ISDIR /e",
                                         dir.path() + " CREATE /e/sub/y",
                                         dir.path() + " CLOSE_WRITE /e/sub/y",
                                         dir.path() + " CREATE,ISDIR /e/sub/deeper/z",
                                         dir.path() + " MOVED_FROM /e/sub/x",
                                         dir.path() + " MOVED_TO /e/sub/deeper/x2",
                                     }));
  EXPECT_EQ(w.source().Stats().watches, watches + 1);  // the moved tree kept its watches, plus z
}

TEST(InotifyMoves, DirectoryMovedOutLosesItsWatches) {
  TempDir dir;
  TempDir outside;
  MakeDirs(dir / "d/sub");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  EXPECT_EQ(w.source().Stats().watches, 3u);
  Rename(dir / "d", outside / "d");
  EXPECT_EQ(Lines(w.CollectQuiet()), std::vector<std::string>{dir.path() + " MOVED_FROM,ISDIR /d"});
  EXPECT_EQ(w.source().Stats().watches, 1u);
  WriteFile(outside / "d/sub/after", "");
  WriteFile(outside / "d/after", "");
  EXPECT_TRUE(w.CollectQuiet(200ms).empty());
  EXPECT_EQ(w.source().Stats().unresolved, 0u);
}

TEST(InotifyMoves, DirectoryMovedInIsWatchedAndItsContentsAreReported) {
  TempDir dir;
  TempDir outside;
  MakeDirs(outside / "m/sub");
  WriteFile(outside / "m/sub/old", "");
  WriteFile(outside / "m/top", "");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  Rename(outside / "m", dir / "m");
  auto moved = w.CollectQuiet();
  ASSERT_FALSE(moved.empty());
  EXPECT_EQ(Line(moved[0]), dir.path() + " MOVED_TO,ISDIR /m");
  EXPECT_NE(moved[0].cookie, 0u);
  // Then its contents, each directory before its own entries (listing order within one).
  std::set<std::string> rest;
  for (size_t i = 1; i < moved.size(); ++i) rest.insert(Line(moved[i]));
  EXPECT_EQ(rest, (std::set<std::string>{dir.path() + " CREATE,ISDIR /m/sub",
                                         dir.path() + " CREATE /m/sub/old",
                                         dir.path() + " CREATE /m/top"}));
  EXPECT_EQ(moved.size(), 4u);
  EXPECT_EQ(w.source().Stats().watches, 3u);
  WriteFile(dir / "m/sub/new", "");
  std::filesystem::remove(dir / "m/sub/old");
  EXPECT_EQ(Lines(w.CollectQuiet()),
            (std::vector<std::string>{dir.path() + " CREATE /m/sub/new",
                                      dir.path() + " CLOSE_WRITE /m/sub/new",
                                      dir.path() + " DELETE /m/sub/old"}));
}

TEST(InotifyMoves, FileMovedOutIsAnUnpairedMovedFrom) {
  TempDir dir;
  TempDir outside;
  WriteFile(dir / "f", "");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  Rename(dir / "f", outside / "f");
  WriteFile(dir / "g", "");
  auto events = w.CollectQuiet();
  EXPECT_EQ(Lines(events),
            (std::vector<std::string>{dir.path() + " MOVED_FROM /f", dir.path() + " CREATE /g",
                                      dir.path() + " CLOSE_WRITE /g"}));
}

TEST(InotifyMoves, DirectoryRenamedOverAnEmptyDirectoryReplacesIt) {
  TempDir dir;
  MakeDirs(dir / "a/in");
  MakeDirs(dir / "b");
  Watcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  EXPECT_EQ(w.source().Stats().watches, 4u);
  Rename(dir / "a", dir / "b");
  WriteFile(dir / "b/in/f", "");
  EXPECT_EQ(Lines(w.CollectQuiet()),
            (std::vector<std::string>{
                dir.path() + " MOVED_FROM,ISDIR /a", dir.path() + " MOVED_TO,ISDIR /b",
                dir.path() + " CREATE /b/in/f", dir.path() + " CLOSE_WRITE /b/in/f"}));
  EXPECT_EQ(w.source().Stats().watches, 3u);
}

}  // namespace
}  // namespace fathom::testing
