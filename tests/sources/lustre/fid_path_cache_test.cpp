// FidPathCache: LRU bounds, relative and absolute entries, renames and removals.
#include "sources/lustre/fid_path_cache.h"

#include <gtest/gtest.h>

namespace fathom::lustre_source {
namespace {

using lustre::Fid;
using lustre::kRootFid;

Fid F(uint32_t oid) { return Fid{0x200000400, oid, 0}; }

TEST(FidPathCacheTest, RootIsAlwaysKnown) {
  FidPathCache cache(0);
  const auto* e = cache.Find(kRootFid);
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->absolute);
  EXPECT_EQ(e->path, "");
  EXPECT_TRUE(cache.IsDirectory(kRootFid));
}

TEST(FidPathCacheTest, ZeroCapacityKeepsNothing) {
  FidPathCache cache(0);
  cache.Learn(F(1), kRootFid, "a", true);
  cache.StoreAbsolute(F(2), "b");
  EXPECT_EQ(cache.Find(F(1)), nullptr);
  EXPECT_EQ(cache.Find(F(2)), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(FidPathCacheTest, EvictsLeastRecentlyUsed) {
  FidPathCache cache(2);
  cache.Learn(F(1), kRootFid, "a", false);
  cache.Learn(F(2), kRootFid, "b", false);
  ASSERT_NE(cache.Find(F(1)), nullptr);  // F(2) is now the least recently used
  cache.Learn(F(3), kRootFid, "c", false);
  EXPECT_NE(cache.Find(F(1)), nullptr);
  EXPECT_EQ(cache.Find(F(2)), nullptr);
  EXPECT_NE(cache.Find(F(3)), nullptr);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(FidPathCacheTest, RenamedDirectoryRewritesAbsoluteDescendants) {
  FidPathCache cache(10);
  cache.StoreAbsolute(F(1), "a");
  cache.StoreAbsolute(F(2), "a/b");
  cache.StoreAbsolute(F(3), "a/b/c");
  cache.StoreAbsolute(F(4), "ab/x");  // shares a prefix, not a descendant
  const std::string from = "a", to = "z/y";
  cache.Moved(F(1), F(9), "y", &from, &to);
  EXPECT_FALSE(cache.Find(F(1))->absolute);
  EXPECT_EQ(cache.Find(F(1))->name, "y");
  EXPECT_EQ(cache.Find(F(2))->path, "z/y/b");
  EXPECT_EQ(cache.Find(F(3))->path, "z/y/b/c");
  EXPECT_EQ(cache.Find(F(4))->path, "ab/x");
}

TEST(FidPathCacheTest, RenameWithUnknownDestinationDropsDescendants) {
  FidPathCache cache(10);
  cache.StoreAbsolute(F(2), "a/b");
  const std::string from = "a";
  cache.Moved(F(1), F(9), "y", &from, nullptr);
  EXPECT_EQ(cache.Find(F(2)), nullptr);
  EXPECT_NE(cache.Find(F(1)), nullptr);
}

TEST(FidPathCacheTest, RemovedDirectoryDropsItselfAndEverythingBelow) {
  FidPathCache cache(10);
  cache.Learn(F(1), kRootFid, "d", true);
  cache.StoreAbsolute(F(2), "d/e");
  cache.StoreAbsolute(F(3), "d/e/f");
  cache.StoreAbsolute(F(4), "d2");
  const std::string path = "d";
  cache.Forget(F(1), &path);
  EXPECT_EQ(cache.Find(F(1)), nullptr);
  EXPECT_EQ(cache.Find(F(2)), nullptr);
  EXPECT_EQ(cache.Find(F(3)), nullptr);
  EXPECT_NE(cache.Find(F(4)), nullptr);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(FidPathCacheTest, DirectoryFlagSurvivesRelearning) {
  FidPathCache cache(10);
  cache.StoreAbsolute(F(1), "d");
  EXPECT_FALSE(cache.IsDirectory(F(1)));
  cache.NoteDirectory(F(1));
  EXPECT_TRUE(cache.IsDirectory(F(1)));
  cache.Learn(F(1), kRootFid, "e", false);
  EXPECT_TRUE(cache.IsDirectory(F(1)));
}

TEST(FidPathCacheTest, NewAbsoluteEntryReplacesAStaleOneAtTheSamePath) {
  FidPathCache cache(10);
  cache.StoreAbsolute(F(1), "x");
  cache.StoreAbsolute(F(2), "x");
  EXPECT_EQ(cache.Find(F(1)), nullptr);
  EXPECT_EQ(cache.Find(F(2))->path, "x");
}

}  // namespace
}  // namespace fathom::lustre_source
