#include "catalog/follow/dirty_paths.h"

#include <gtest/gtest.h>

namespace fathom::catalog {
namespace {

using Paths = std::vector<std::string>;

TEST(DirtyPaths, APathNotedManyTimesIsTakenOnce) {
  DirtyPaths d;
  for (int i = 0; i < 1000; ++i) d.Add("/r/f");
  d.Add("/r/g");
  EXPECT_EQ(d.Take(), (Paths{"/r/f", "/r/g"}));
  EXPECT_TRUE(d.empty());
}

TEST(DirtyPaths, ParentsComeBeforeWhatLiesBelowThemThenTheOrderNoted) {
  DirtyPaths d;
  d.Add("/r/a/b/c");
  d.Add("/r/z");
  d.Add("/r/a/b");
  d.Add("/r/a");
  EXPECT_EQ(d.Take(), (Paths{"/r/z", "/r/a", "/r/a/b", "/r/a/b/c"}));
}

TEST(DirtyPaths, PathsBelowARenamedDirectoryFollowIt) {
  DirtyPaths d;
  d.Add("/r/a/x");
  d.Add("/r/a-b");   // sorts between "/r/a" and "/r/a/x": not below /r/a
  d.Add("/r/a");
  d.Add("/r/ab/y");  // not below /r/a either
  d.Move("/r/a", "/r/q/a2");
  EXPECT_EQ(d.Take(), (Paths{"/r/a-b", "/r/q/a2", "/r/ab/y", "/r/q/a2/x"}));
}

TEST(DirtyPaths, APathsObjectGoesAlongWithItAndTheNewestIsKept) {
  DirtyPaths d;
  d.Add("/r/a/f", "/r/.lustre/fid/[0x200000400:0x1:0x0]");
  d.Add("/r/a/f");  // noted again without one: the object stays
  d.Add("/r/a/g", "/r/.lustre/fid/[0x200000400:0x2:0x0]");
  d.Add("/r/a/g", "/r/.lustre/fid/[0x200000400:0x3:0x0]");
  d.Add("/r/h");
  d.Move("/r/a", "/r/b");
  const std::vector<DirtyPath> taken = d.TakeEntries();
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_EQ(taken[0].path, "/r/h");
  EXPECT_EQ(taken[0].object, "");
  EXPECT_EQ(taken[1].path, "/r/b/f");
  EXPECT_EQ(taken[1].object, "/r/.lustre/fid/[0x200000400:0x1:0x0]");
  EXPECT_EQ(taken[2].path, "/r/b/g");
  EXPECT_EQ(taken[2].object, "/r/.lustre/fid/[0x200000400:0x3:0x0]");
  EXPECT_TRUE(d.empty());
}

TEST(DirtyPaths, RenamingOntoANotedPathKeepsOneEntry) {
  DirtyPaths d;
  d.Add("/r/b");
  d.Add("/r/a");
  d.Move("/r/a", "/r/b");
  EXPECT_EQ(d.Take(), (Paths{"/r/b"}));
}

TEST(DirtyPaths, PathsBelowARemovedDirectoryAreDropped) {
  DirtyPaths d;
  d.Add("/r/a");
  d.Add("/r/a/x/y");
  d.Add("/r/a-b");
  d.Add("/r/ab");
  d.Remove("/r/a");
  EXPECT_EQ(d.Take(), (Paths{"/r/a-b", "/r/ab"}));
}

}  // namespace
}  // namespace fathom::catalog
