// FidPathCache: LRU bounds, relative and absolute entries, renames and removals.
#include "sources/lustre/fid_path_cache.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

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

// A noted directory path is given back while no directory's entry changes.
TEST(FidPathCacheTest, NotedPathHoldsWhileNoDirectoryChanges) {
  FidPathCache cache(10);
  cache.Learn(F(1), kRootFid, "a", true);
  cache.Learn(F(2), F(1), "b", false);
  ASSERT_EQ(cache.ResolvedPath(*cache.Find(F(2))), nullptr);
  cache.NoteResolved(F(2), "a/b");
  const auto* e = cache.Find(F(2));
  ASSERT_NE(cache.ResolvedPath(*e), nullptr);
  EXPECT_EQ(*cache.ResolvedPath(*e), "a/b");
  EXPECT_TRUE(cache.IsDirectory(F(2)));  // only directories' paths are noted
  // Files come and go, are renamed and evicted: no directory changed.
  cache.Learn(F(3), F(2), "f", false);
  cache.Moved(F(3), F(2), "g", nullptr, nullptr);
  cache.Forget(F(3), nullptr);
  EXPECT_EQ(*cache.ResolvedPath(*cache.Find(F(2))), "a/b");
  // Absolute entries have no noted path.
  cache.StoreAbsolute(F(4), "a/c");
  cache.NoteResolved(F(4), "elsewhere");
  EXPECT_EQ(cache.ResolvedPath(*cache.Find(F(4))), nullptr);
  EXPECT_EQ(cache.Find(F(4))->path, "a/c");
}

TEST(FidPathCacheTest, ParentsFoundAsParentsAreDirectories) {
  FidPathCache cache(10);
  cache.Learn(F(1), kRootFid, "a", false);
  EXPECT_FALSE(cache.IsDirectory(F(1)));
  ASSERT_NE(cache.FindParent(F(1)), nullptr);
  EXPECT_TRUE(cache.IsDirectory(F(1)));
  EXPECT_EQ(cache.FindParent(F(9)), nullptr);
}

// Every way a directory's entry changes or goes makes every noted path stale.
TEST(FidPathCacheTest, NotedPathsGoStaleWhenADirectoryChanges) {
  const std::vector<std::pair<const char*, std::function<void(FidPathCache&)>>> changes = {
      {"renamed", [](FidPathCache& c) { c.Moved(F(1), kRootFid, "z", nullptr, nullptr); }},
      {"removed", [](FidPathCache& c) { c.Forget(F(1), nullptr); }},
      {"relearned", [](FidPathCache& c) { c.Learn(F(1), kRootFid, "a", true); }},
      {"made absolute", [](FidPathCache& c) { c.StoreAbsolute(F(1), "a"); }},
      {"another directory removed", [](FidPathCache& c) { c.Forget(F(5), nullptr); }},
      {"absolute entries below a path dropped",
       [](FidPathCache& c) {
         const std::string path = "q";
         c.Forget(F(7), &path);
       }},
      {"absolute entries below a path moved",
       [](FidPathCache& c) {
         const std::string from = "q", to = "r";
         c.Moved(F(7), kRootFid, "r", &from, &to);
       }},
      {"a directory evicted",
       [](FidPathCache& c) {
         // Six entries fit: the second new one evicts the least recently used, F(1).
         c.Learn(F(100), kRootFid, "x", false);
         c.Learn(F(101), kRootFid, "y", false);
       }},
      {"a directory's path taken by another FID", [](FidPathCache& c) { c.StoreAbsolute(F(9), "q/w"); }},
  };
  for (const auto& [what, change] : changes) {
    SCOPED_TRACE(what);
    FidPathCache cache(6);
    cache.Learn(F(1), kRootFid, "a", true);
    cache.Learn(F(2), F(1), "b", true);
    cache.Learn(F(5), kRootFid, "e", true);
    cache.StoreAbsolute(F(7), "q");
    cache.StoreAbsolute(F(8), "q/w");
    cache.NoteDirectory(F(8));
    cache.NoteResolved(F(2), "a/b");
    ASSERT_NE(cache.ResolvedPath(*cache.Find(F(2))), nullptr);
    change(cache);
    const auto* e = cache.Find(F(2));
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(cache.ResolvedPath(*e), nullptr);
  }
}

}  // namespace
}  // namespace fathom::lustre_source
