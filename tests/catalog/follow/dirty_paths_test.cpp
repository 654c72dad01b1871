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
