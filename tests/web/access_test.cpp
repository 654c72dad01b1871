// access_test.cpp — grants over paths (Access) and the paths a request may name (CleanPath).
#include "web/access.h"

#include <gtest/gtest.h>

namespace fathom::web {
namespace {

TEST(WebAccess, AGrantCoversItsPathAndWhatLiesBelowOnComponentBoundaries) {
  Access a{"alice", 1000, {"/data/alice", "/scratch/a"}, false};
  EXPECT_TRUE(a.Covers("/data/alice"));
  EXPECT_TRUE(a.Covers("/data/alice/x/y"));
  EXPECT_FALSE(a.Covers("/data/alicex"));
  EXPECT_FALSE(a.Covers("/data"));
  EXPECT_FALSE(a.Everything());
  EXPECT_TRUE((Access{"root", 0, {"/"}, true}).Covers("/anything"));
  EXPECT_TRUE((Access{"root", 0, {"/"}, true}).Everything());
  EXPECT_FALSE((Access{"none", 0, {}, false}).Covers("/"));
}

TEST(WebAccess, ScopesUnderAPathAreThePathWhenCoveredElseTheGrantsBelowIt) {
  Access a{"alice", 1000, {"/data/alice", "/scratch/a"}, false};
  EXPECT_EQ(a.ScopesUnder("/data/alice/sub"), (std::vector<std::string>{"/data/alice/sub"}));
  EXPECT_EQ(a.ScopesUnder("/data"), (std::vector<std::string>{"/data/alice"}));
  EXPECT_EQ(a.ScopesUnder("/"), (std::vector<std::string>{"/data/alice", "/scratch/a"}));
  EXPECT_EQ(a.ScopesUnder("/home"), std::vector<std::string>{});
  EXPECT_EQ((Access{"root", 0, {"/"}, true}).ScopesUnder("/"), (std::vector<std::string>{"/"}));
}

TEST(WebAccess, CleanPathRefusesRelativeDotAndEmptyComponents) {
  EXPECT_EQ(CleanPath("/a/b/"), "/a/b");
  EXPECT_EQ(CleanPath("/"), "/");
  EXPECT_EQ(CleanPath("/a/.hidden"), "/a/.hidden");
  for (const char* bad : {"", "a/b", "/a/../b", "/a/./b", "/a//b", "/..", "/."}) {
    EXPECT_EQ(CleanPath(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(CleanPath(std::string_view("/a\0b", 4)), std::nullopt);
}

}  // namespace
}  // namespace fathom::web
