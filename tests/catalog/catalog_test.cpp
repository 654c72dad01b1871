// The catalog's operations and rules on a real catalog: names and entries, renames of
// populated directories, hard links, replacements, removals with their last paths, stale
// observations, scans by generation, stream positions and the kept statistics. Built twice:
// on SQLite (catalog_test) and on PostgreSQL (catalog_pg_test; catalog_test_target.h).
#include <gtest/gtest.h>

#include <chrono>

#include "catalog/freshness.h"
#include "catalog/catalog_test_target.h"
#include "catalog/catalog_test_util.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;
using testing::SymlinkAttrs;

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = testing::NewCatalogUri(dir_, "catalog");
    catalog_ = testing::OpenCatalogOrDie(uri_);
    ASSERT_NE(catalog_, nullptr);
  }
  // A time `offset` ns after the test began (removals older than the retention expire).
  int64_t T(int64_t offset) const { return base_ + offset; }

  std::unique_ptr<Batch> Begin() {
    auto batch = catalog_->Begin();
    EXPECT_TRUE(batch.ok()) << batch.status().message();
    return std::move(batch).value();
  }
  EntryId Id(const std::string& path) {
    auto node = catalog_->Stat(path);
    EXPECT_TRUE(node.ok()) << node.status().message();
    return node.ok() && node.value() ? node.value()->id : 0;
  }
  std::vector<std::string> RemovedPaths() {
    std::vector<std::string> paths;
    EXPECT_TRUE(catalog_->Removed("", 0, [&](const RemovedEntry& r) {
      paths.push_back(r.path);
      return true;
    }).ok());
    return paths;
  }
  // /r (ino 1) holding a/ (2) with b/ (3) with f (4, 100 bytes), and x/ (5).
  void PutSmallTree(Batch& b) {
    EntryId r = FATHOM_TEST_VALUE(b.PutRoot("/r", DirAttrs(1), At(T(1))));
    EntryId a = FATHOM_TEST_VALUE(b.Put(r, "a", DirAttrs(2), At(T(1))));
    EntryId bb = FATHOM_TEST_VALUE(b.Put(a, "b", DirAttrs(3), At(T(1))));
    FATHOM_TEST_VALUE(b.Put(bb, "f", FileAttrs(4, 100), At(T(1))));
    FATHOM_TEST_VALUE(b.Put(r, "x", DirAttrs(5), At(T(1))));
  }

  // The paths Select() hands for `sel`, each with ":depth", sorted.
  std::vector<std::string> Selected(const Selection& sel) {
    std::vector<std::string> found;
    EXPECT_TRUE(catalog_->Select(sel, [&](const Visit& v) {
      found.push_back(std::string(v.path) + ":" + std::to_string(v.depth));
      return true;
    }).ok());
    std::sort(found.begin(), found.end());
    return found;
  }
  // /r/x/big and its hard link /r/a/b/big-link (ino 60, 1 MiB, owner 2000, mtime T(9)).
  void PutBigFileWithLink(Batch& b) {
    const Attrs big = FileAttrs(60, 1 << 20, 2000, 2, T(9));
    FATHOM_TEST_VALUE(b.Put(Id("/r/x"), "big", big, At(T(1))));
    FATHOM_TEST_VALUE(b.Put(Id("/r/a/b"), "big-link", big, At(T(1))));
  }

  fathom::testing::TempDir dir_;
  std::string uri_;
  std::unique_ptr<Catalog> catalog_;
  int64_t base_ = NowNs();
};

TEST(SizeBucketTest, FollowsRobinhoodSizeProfile) {
  EXPECT_EQ(SizeBucket(0), 0);
  EXPECT_EQ(SizeBucket(1), 1);
  EXPECT_EQ(SizeBucket(31), 1);
  EXPECT_EQ(SizeBucket(32), 2);
  EXPECT_EQ(SizeBucket(1023), 2);
  EXPECT_EQ(SizeBucket(1024), 3);
  EXPECT_EQ(SizeBucket(32 * 1024 - 1), 3);
  EXPECT_EQ(SizeBucket(32 * 1024), 4);
  EXPECT_EQ(SizeBucket((int64_t{1} << 20) - 1), 4);
  EXPECT_EQ(SizeBucket(int64_t{1} << 20), 5);
  EXPECT_EQ(SizeBucket(int64_t{1} << 25), 6);
  EXPECT_EQ(SizeBucket(int64_t{1} << 30), 7);
  EXPECT_EQ(SizeBucket(int64_t{1} << 35), 8);
  EXPECT_EQ(SizeBucket((int64_t{1} << 40) - 1), 8);
  EXPECT_EQ(SizeBucket(int64_t{1} << 40), 9);
  EXPECT_EQ(SizeBucket(int64_t{1} << 62), 9);
}

TEST_F(CatalogTest, CommitsCountEveryCommittedBatchAndAReaderSeesThemMove) {
  CatalogOptions options;
  options.uri = uri_;
  options.read_only = true;
  std::unique_ptr<Catalog> reader = FATHOM_TEST_VALUE(Catalog::Open(options));
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Commits()), 0u);
  EXPECT_EQ(FATHOM_TEST_VALUE(reader->Commits()), 0u);
  {
    auto b = Begin();
    PutSmallTree(*b);
    ASSERT_TRUE(b->Commit().ok());
  }
  EXPECT_EQ(FATHOM_TEST_VALUE(reader->Commits()), 1u);
  {
    auto b = Begin();
    FATHOM_TEST_VALUE(b->Put(Id("/r/x"), "g", FileAttrs(6, 1), At(T(2))));
    // Rolled back: not counted.
  }
  EXPECT_EQ(FATHOM_TEST_VALUE(reader->Commits()), 1u);
  {
    auto b = Begin();
    ASSERT_TRUE(b->Commit("follower", 42).ok());  // nothing changed but the stream's position
  }
  EXPECT_EQ(FATHOM_TEST_VALUE(reader->Commits()), 2u);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Commits()), 2u);
}

TEST_F(CatalogTest, EveryObjectAndEverySubtreeCanBeReadWithoutTheirNames) {
  {
    auto b = Begin();
    PutSmallTree(*b);
    PutBigFileWithLink(*b);
    ASSERT_TRUE(b->Commit().ok());
  }
  std::map<uint64_t, int64_t> sizes;  // ino -> size: each object once, its two names or not
  ASSERT_TRUE(catalog_->ForEachAttrs([&](const Attrs& a) {
    EXPECT_EQ(sizes.count(a.ino), 0u) << a.ino;
    sizes[a.ino] = a.size;
  }).ok());
  EXPECT_EQ(sizes, (std::map<uint64_t, int64_t>{{1, 4096}, {2, 4096}, {3, 4096}, {4, 100}, {5, 4096}, {60, 1 << 20}}));
  std::map<std::string, Totals> subtrees;
  ASSERT_TRUE(catalog_->ForEachSubtree([&](EntryId dir, const Totals& t) {
    auto paths = catalog_->Paths(dir);
    ASSERT_TRUE(paths.ok() && !paths->empty());
    subtrees[paths->front()] = t;
  }).ok());
  ASSERT_EQ(subtrees.size(), 4u);
  for (const auto& kept : subtrees) {
    EXPECT_EQ(kept.second, FATHOM_TEST_VALUE(catalog_->Subtree(Id(kept.first)))) << kept.first;
  }
  EXPECT_EQ(subtrees["/r"].files, 3u);  // f, big and big-link: per name
  EXPECT_EQ(subtrees["/r/a/b"].size, 4096 + 100 + (1 << 20));
  auto view = VisibleTo(std::move(catalog_), Caller{1000, {1000}});
  Status refused = view->ForEachAttrs([](const Attrs&) {});
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("walk it instead"), std::string::npos) << refused.message();
  EXPECT_FALSE(view->ForEachSubtree([](EntryId, const Totals&) {}).ok());
}

TEST_F(CatalogTest, StatReturnsEveryAttributePut) {
  Attrs file = FileAttrs(7, 12345, 1001, 1, T(5));
  file.atime_ns = T(3);
  file.ctime_ns = T(4);
  file.projid = 77;
  file.lustre = LustreInfo{"[0x200000400:0x1:0x0]", 1, 4, 1 << 20, "fast", {0, 3, 7, 12}};
  Attrs link = SymlinkAttrs(8, "../some/target");
  {
    auto b = Begin();
    EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/mnt/fs", DirAttrs(1), At(T(1))));
    FATHOM_TEST_VALUE(b->Put(r, "data.bin", file, At(T(1))));
    FATHOM_TEST_VALUE(b->Put(r, "link", link, At(T(1))));
    ASSERT_TRUE(b->Commit().ok());
  }
  auto node = FATHOM_TEST_VALUE(catalog_->Stat("/mnt/fs/data.bin"));
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->attrs, file);
  EXPECT_EQ(node->name, "data.bin");
  EXPECT_EQ(node->parent, Id("/mnt/fs"));
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/mnt/fs/link"))->attrs, link);
  EXPECT_FALSE(FATHOM_TEST_VALUE(catalog_->Stat("/mnt/fs/absent")).has_value());
  EXPECT_FALSE(FATHOM_TEST_VALUE(catalog_->Stat("/elsewhere")).has_value());
  EXPECT_FALSE(catalog_->Stat("relative/path").ok());
}

TEST_F(CatalogTest, AttributesReadWithoutLustresViewKeepTheObjectsKeptOne) {
  Attrs scanned = FileAttrs(7, 100, 1001, 1, T(5));
  scanned.lustre = LustreInfo{"[0x200000400:0x1:0x0]", 2, 0, 0, "", {}};
  Attrs written = FileAttrs(7, 4096, 1001, 1, T(6));  // lstat alone: no Lustre view
  Attrs moved_mdt = written;
  moved_mdt.lustre = LustreInfo{"[0x200000400:0x1:0x0]", 3, 0, 0, "", {}};
  {
    auto b = Begin();
    EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/mnt/fs", DirAttrs(1), At(T(1))));
    FATHOM_TEST_VALUE(b->Put(r, "f", scanned, At(T(1))));
    FATHOM_TEST_VALUE(b->Put(r, "f", written, At(T(2))));
    ASSERT_TRUE(b->Commit().ok());
  }
  Attrs expected = written;
  expected.lustre = scanned.lustre;
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/mnt/fs/f"))->attrs, expected);
  {
    auto b = Begin();
    FATHOM_TEST_VALUE(b->Put(Id("/mnt/fs"), "f", moved_mdt, At(T(3))));  // a view given replaces it
    ASSERT_TRUE(b->Commit().ok());
  }
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/mnt/fs/f"))->attrs, moved_mdt);
}

TEST_F(CatalogTest, PathsOfAnObjectAreEveryNameItHasInTheBatch) {
  auto b = Begin();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(T(1))));
  EntryId d = FATHOM_TEST_VALUE(b->Put(r, "d", DirAttrs(2), At(T(1))));
  Attrs file = FileAttrs(3, 10, 1000, 1, T(1));
  file.nlink = 2;
  FATHOM_TEST_VALUE(b->Put(d, "f", file, At(T(1))));
  FATHOM_TEST_VALUE(b->Put(r, "g", file, At(T(1))));
  EXPECT_EQ(FATHOM_TEST_VALUE(b->PathsOf(file.dev, 3)), (std::vector<std::string>{"/r/d/f", "/r/g"}));
  EXPECT_EQ(FATHOM_TEST_VALUE(b->PathsOf(file.dev, 2)), std::vector<std::string>{"/r/d"});
  EXPECT_EQ(FATHOM_TEST_VALUE(b->PathsOf(file.dev, 99)), std::vector<std::string>{});
  EXPECT_EQ(FATHOM_TEST_VALUE(b->PathsOf(file.dev + 1, 3)), std::vector<std::string>{});
}

TEST_F(CatalogTest, RenamedPopulatedDirectoryKeepsDescendantPathsAndMovesItsTotals) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId r = Id("/r"), a = Id("/r/a"), x = Id("/r/x"), f = Id("/r/a/b/f");
  ASSERT_TRUE(b->Move(a, "b", x, "moved", At(T(2)), Removal{}).ok());
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Id("/r/x/moved/f"), f);
  EXPECT_EQ(Id("/r/a/b/f"), 0);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Paths(f)), std::vector<std::string>{"/r/x/moved/f"});
  Totals in_a = FATHOM_TEST_VALUE(catalog_->Subtree(a));
  EXPECT_EQ(in_a.dirs, 1u);
  EXPECT_EQ(in_a.files, 0u);
  EXPECT_EQ(in_a.size, 4096);
  Totals in_x = FATHOM_TEST_VALUE(catalog_->Subtree(x));
  EXPECT_EQ(in_x.dirs, 2u);
  EXPECT_EQ(in_x.files, 1u);
  EXPECT_EQ(in_x.size, 4096 * 2 + 100);
  Totals in_r = FATHOM_TEST_VALUE(catalog_->Subtree(r));
  EXPECT_EQ(in_r.entries(), 5u);
  EXPECT_EQ(in_r.size, 4096 * 4 + 100);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, HardLinksAreSeveralNamesAndUsageCountsThemOnce) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId r = Id("/r"), bb = Id("/r/a/b"), x = Id("/r/x"), a = Id("/r/a");
  Attrs linked = FileAttrs(9, 5000, 1000, 2);
  EntryId first = FATHOM_TEST_VALUE(b->Put(bb, "one", linked, At(T(2))));
  EntryId second = FATHOM_TEST_VALUE(b->Put(x, "two", linked, At(T(2))));
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(first, second);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Paths(first)),
            (std::vector<std::string>{"/r/a/b/one", "/r/x/two"}));
  Totals subtree = FATHOM_TEST_VALUE(catalog_->Subtree(r));
  EXPECT_EQ(subtree.files, 3u);
  EXPECT_EQ(subtree.size, 4096 * 4 + 100 + 2 * 5000);
  Totals du = FATHOM_TEST_VALUE(catalog_->Usage(r, false));
  EXPECT_EQ(du.files, 2u);
  EXPECT_EQ(du.size, 4096 * 4 + 100 + 5000);
  EXPECT_EQ(du.blocks, subtree.blocks - (5000 + 511) / 512);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Usage(r, true)), subtree);
  // Below /r/a only one of the two names: nothing to correct.
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Usage(a, false)), FATHOM_TEST_VALUE(catalog_->Subtree(a)));
  uint64_t files = 0;
  for (const AcctRow& row : FATHOM_TEST_VALUE(catalog_->Accounting())) {
    if (row.type == S_IFREG) files += row.count;
  }
  EXPECT_EQ(files, 2u);  // objects, not names
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, PutOfAnotherObjectOnANameReplacesIt) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId x = Id("/r/x");
  EntryId old_id = FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(20, 10), At(T(2))));
  EntryId new_id = FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(21, 30), At(T(3))));
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_NE(old_id, new_id);
  EXPECT_EQ(Id("/r/x/f"), new_id);
  EXPECT_EQ(RemovedPaths(), std::vector<std::string>{"/r/x/f"});
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Subtree(x)).size, 4096 + 30);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, RemovingASubtreeRecordsEveryObjectWithItsLastPath) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId r = Id("/r"), bb = Id("/r/a/b"), x = Id("/r/x");
  Attrs linked = FileAttrs(9, 5000, 1000, 2);
  FATHOM_TEST_VALUE(b->Put(bb, "one", linked, At(T(2))));
  FATHOM_TEST_VALUE(b->Put(x, "two", linked, At(T(2))));
  ASSERT_TRUE(b->Remove(r, "a", Removal{T(3), 17, 0, "job-1"}).ok());
  ASSERT_TRUE(b->Commit().ok());
  std::vector<RemovedEntry> removed;
  ASSERT_TRUE(catalog_->Removed("/r", 0, [&](const RemovedEntry& e) {
    removed.push_back(e);
    return true;
  }).ok());
  std::vector<std::string> paths;
  for (const RemovedEntry& e : removed) paths.push_back(e.path);
  std::sort(paths.begin(), paths.end());
  // The hard-linked object keeps its name in /r/x: not removed.
  EXPECT_EQ(paths, (std::vector<std::string>{"/r/a", "/r/a/b", "/r/a/b/f"}));
  for (const RemovedEntry& e : removed) {
    EXPECT_EQ(e.removal.time_ns, T(3));
    EXPECT_EQ(e.removal.event_id, 17u);
    EXPECT_EQ(e.removal.jobid, "job-1");
    if (e.path == "/r/a/b/f") {
      EXPECT_EQ(e.attrs, FileAttrs(4, 100));
    }
  }
  EXPECT_NE(Id("/r/x/two"), 0);
  Totals in_r = FATHOM_TEST_VALUE(catalog_->Subtree(r));
  EXPECT_EQ(in_r.dirs, 2u);
  EXPECT_EQ(in_r.files, 1u);
  EXPECT_EQ(in_r.size, 2 * 4096 + 5000);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Usage(r, false)), in_r);
  std::vector<std::string> under_x;
  ASSERT_TRUE(catalog_->Removed("/r/x", 0, [&](const RemovedEntry& e) {
    under_x.push_back(e.path);
    return true;
  }).ok());
  EXPECT_TRUE(under_x.empty());
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, StaleObservationsAreIgnored) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId x = Id("/r/x"), r = Id("/r");
  FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(30, 10), At(T(100))));
  // Older attributes do not overwrite newer ones.
  FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(30, 999), At(T(50))));
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Lookup("/r/x/f")), Id("/r/x/f"));
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/r/x/f"))->attrs.size, 10);

  b = Begin();
  ASSERT_TRUE(b->Remove(x, "f", Removal{T(200), 5, {}, {}}).ok());
  // A listing made before the removal does not bring the object back.
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(30, 10), At(T(150)))), 0);
  // A rename at 300; a listing from before it does not undo it.
  ASSERT_TRUE(b->Move(r, "a", x, "a2", At(T(300)), Removal{}).ok());
  Attrs a = DirAttrs(2);
  FATHOM_TEST_VALUE(b->Put(r, "a", a, At(T(250))));
  // A removal older than the object's last observation does not remove it.
  ASSERT_TRUE(b->Remove(x, "a2", Removal{T(280), 6, {}, {}}).ok());
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Id("/r/x/f"), 0);
  EXPECT_EQ(Id("/r/a"), 0);
  EXPECT_NE(Id("/r/x/a2/b/f"), 0);
  // A newer observation applies: the object is back (an inode seen after its removal).
  b = Begin();
  EXPECT_NE(FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(30, 11), At(T(400)))), 0);
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/r/x/f"))->attrs.size, 11);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

// An inode number freed by a directory and given to a file: an older reading of the directory
// is ignored, and what it returns is no entry (a scan must not put the directory's children
// under the file).
TEST_F(CatalogTest, AStaleObservationOfAnIdentityNowOfAnotherTypeReturnsNoEntry) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId x = Id("/r/x");
  FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(30, 10), At(T(100))));
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Put(x, "d", DirAttrs(30), At(T(50)))), 0);
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Id("/r/x/d"), 0);
  EXPECT_NE(Id("/r/x/f"), 0);
}

// Directory /r/x (inode 5) was removed and replaced; a file inside the new /r/x got inode 5.
// A stream reader still holding the old /r/x puts the file under it: the old directory goes,
// and the file is not put under a removed directory.
TEST_F(CatalogTest, AFileWithTheInodeOfTheDirectoryAskedToHoldItIsNotPutUnderIt) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId x = Id("/r/x");
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(5, 10), At(T(50)))), 0);
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Id("/r/x"), 0);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, PutOfASingleNamedObjectElsewhereIsAMissedRename) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId r = Id("/r"), x = Id("/r/x"), a = Id("/r/a");
  // The directory b (with f) seen under /r/x: moved with its subtree.
  EntryId moved = FATHOM_TEST_VALUE(b->Put(x, "b", DirAttrs(3), At(T(2))));
  // A file with one link seen under another name: moved, not linked.
  FATHOM_TEST_VALUE(b->Put(r, "g", FileAttrs(4, 100), At(T(2))));
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Id("/r/x/b"), moved);
  EXPECT_EQ(Id("/r/a/b"), 0);
  EXPECT_EQ(Id("/r/x/b/f"), 0);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Paths(Id("/r/g"))), std::vector<std::string>{"/r/g"});
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Subtree(a)).entries(), 1u);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Subtree(x)).entries(), 2u);
  EXPECT_TRUE(RemovedPaths().empty());
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, MoveOverANameRecordsTheReplacedObject) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId x = Id("/r/x"), bb = Id("/r/a/b");
  FATHOM_TEST_VALUE(b->Put(x, "g", FileAttrs(40, 7), At(T(2))));
  ASSERT_TRUE(b->Move(bb, "f", x, "g", At(T(3)), Removal{T(3), 88, 0, {}}).ok());
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/r/x/g"))->attrs.ino, 4u);
  EXPECT_EQ(RemovedPaths(), std::vector<std::string>{"/r/x/g"});
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Subtree(x)).size, 4096 + 100);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, UncommittedBatchIsRolledBackAndCommitRecordsTheStreamPosition) {
  {
    auto b = Begin();
    PutSmallTree(*b);
  }
  EXPECT_EQ(Id("/r"), 0);
  auto b = Begin();
  PutSmallTree(*b);
  auto second = catalog_->Begin();
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("a batch is already open"), std::string::npos);
  ASSERT_TRUE(b->Commit("events", 1234).ok());
  EXPECT_FALSE(b->Commit().ok());  // a batch commits once
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->LastApplied("events")), 1234u);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->LastApplied("other")), 0u);
  CatalogInfo info = FATHOM_TEST_VALUE(catalog_->Info());
  EXPECT_EQ(info.backend, testing::TargetBackend());
  EXPECT_EQ(info.entries, 5u);
  EXPECT_EQ(info.names, 5u);
  EXPECT_EQ(info.roots, std::vector<std::string>{"/r"});
}

TEST_F(CatalogTest, WalkVisitsPreOrderInByteOrderAndHonoursSkipAndStop) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId r = Id("/r");
  FATHOM_TEST_VALUE(b->Put(r, "B", FileAttrs(50, 1), At(T(1))));
  FATHOM_TEST_VALUE(b->Put(r, "\xc3\xa9", FileAttrs(51, 1), At(T(1))));
  ASSERT_TRUE(b->Commit().ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(catalog_->Walk("/r", [&](const Visit& v) {
    seen.push_back(std::string(v.path) + ":" + std::to_string(v.depth));
    return WalkStep::kContinue;
  }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"/r:0", "/r/B:1", "/r/a:1", "/r/a/b:2", "/r/a/b/f:3",
                                            "/r/x:1", "/r/\xc3\xa9:1"}));
  seen.clear();
  ASSERT_TRUE(catalog_->Walk("/r", [&](const Visit& v) {
    seen.emplace_back(v.path);
    if (v.path == "/r/a") return WalkStep::kSkipChildren;
    return v.path == "/r/x" ? WalkStep::kStop : WalkStep::kContinue;
  }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"/r", "/r/B", "/r/a", "/r/x"}));
  std::vector<std::string> children;
  ASSERT_TRUE(catalog_->Children(r, [&](const Node& n) {
    children.push_back(n.name);
    return children.size() < 2;
  }).ok());
  EXPECT_EQ(children, (std::vector<std::string>{"B", "a"}));
  EXPECT_FALSE(catalog_->Walk("/r/none", [](const Visit&) { return WalkStep::kContinue; }).ok());
}

TEST_F(CatalogTest, WalkReadingAheadManyDirectoriesStillVisitsInPreOrder) {
  // 20 directories of 20 subdirectories of 2 files: more directories than one read ahead.
  auto b = Begin();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(T(1))));
  uint64_t ino = 10;
  std::vector<std::string> expected{"/r"};
  for (int i = 0; i < 20; ++i) {
    const std::string d = "d" + std::to_string(i);
    EntryId dir = FATHOM_TEST_VALUE(b->Put(r, d, DirAttrs(ino++), At(T(1))));
    for (int j = 0; j < 20; ++j) {
      const std::string sub = "s" + std::to_string(j);
      EntryId subdir = FATHOM_TEST_VALUE(b->Put(dir, sub, DirAttrs(ino++), At(T(1))));
      FATHOM_TEST_VALUE(b->Put(subdir, "a", FileAttrs(ino++, 1), At(T(1))));
      FATHOM_TEST_VALUE(b->Put(subdir, "b", FileAttrs(ino++, 1), At(T(1))));
    }
  }
  ASSERT_TRUE(b->Commit().ok());
  // Byte order of the names: d0 d1 d10 .. d19 d2 ..; s0 s1 s10 ..; d7's children skipped.
  std::vector<std::string> dirs, subs;
  for (int i = 0; i < 20; ++i) dirs.push_back("d" + std::to_string(i)), subs.push_back("s" + std::to_string(i));
  std::sort(dirs.begin(), dirs.end());
  std::sort(subs.begin(), subs.end());
  for (const std::string& d : dirs) {
    expected.push_back("/r/" + d);
    if (d == "d7") continue;
    for (const std::string& sub : subs) {
      expected.push_back("/r/" + d + "/" + sub);
      expected.push_back("/r/" + d + "/" + sub + "/a");
      expected.push_back("/r/" + d + "/" + sub + "/b");
    }
  }
  std::vector<std::string> seen;
  ASSERT_TRUE(catalog_->Walk("/r", [&](const Visit& v) {
    seen.emplace_back(v.path);
    EXPECT_EQ(v.depth, static_cast<int>(std::count(v.path.begin(), v.path.end(), '/')) - 1) << v.path;
    return v.path == "/r/d7" ? WalkStep::kSkipChildren : WalkStep::kContinue;
  }).ok());
  EXPECT_EQ(seen, expected);
}

TEST_F(CatalogTest, WalkModesVisitsWhatWalkVisitsWithTheSameIdsAndModes) {
  auto b = Begin();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(T(1))));
  uint64_t ino = 10;
  for (int i = 0; i < 30; ++i) {
    EntryId dir = FATHOM_TEST_VALUE(b->Put(r, "d" + std::to_string(i), DirAttrs(ino++), At(T(1))));
    FATHOM_TEST_VALUE(b->Put(dir, "f", FileAttrs(ino++, 1), At(T(1))));
    FATHOM_TEST_VALUE(b->Put(dir, "l", SymlinkAttrs(ino++, "f"), At(T(1))));
    EntryId sub = FATHOM_TEST_VALUE(b->Put(dir, "s", DirAttrs(ino++), At(T(1))));
    FATHOM_TEST_VALUE(b->Put(sub, "g", FileAttrs(ino++, 1), At(T(1))));
  }
  ASSERT_TRUE(b->Commit().ok());
  using Step = std::tuple<std::string, int, EntryId, uint32_t>;
  auto walk = [&](bool modes) {
    std::vector<Step> steps;
    auto fn = [&](const Visit& v) {
      steps.emplace_back(std::string(v.path), v.depth, v.node.id, v.node.attrs.mode);
      return v.path == "/r/d7" ? WalkStep::kSkipChildren : WalkStep::kContinue;
    };
    EXPECT_TRUE((modes ? catalog_->WalkModes("/r", fn) : catalog_->Walk("/r", fn)).ok());
    return steps;
  };
  const std::vector<Step> full = walk(false);
  EXPECT_EQ(full.size(), 1u + 30 + 29 * 4);
  EXPECT_EQ(walk(true), full);
}

TEST_F(CatalogTest, SelectHandsEveryNameOfEachMatchingObject) {
  auto b = Begin();
  PutSmallTree(*b);
  PutBigFileWithLink(*b);
  FATHOM_TEST_VALUE(b->Put(Id("/r/x"), "small", FileAttrs(61, 10, 2000, 1, T(9)), At(T(1))));
  ASSERT_TRUE(b->Commit().ok());
  Selection sel;
  sel.uid = 2000;
  sel.min_size = 1000;
  sel.type = S_IFREG;
  EXPECT_EQ(Selected(sel), (std::vector<std::string>{"/r/a/b/big-link:3", "/r/x/big:2"}));
  std::vector<std::string> found;
  Selection by_time;
  by_time.min_mtime_ns = T(9);
  by_time.max_mtime_ns = T(9);
  by_time.max_size = 10;
  ASSERT_TRUE(catalog_->Select(by_time, [&](const Visit& v) {
    found.emplace_back(v.path);
    return true;
  }).ok());
  EXPECT_EQ(found, std::vector<std::string>{"/r/x/small"});
}

TEST_F(CatalogTest, SelectTestsNamesBeforeBuildingPathsButNeverARootsName) {
  auto b = Begin();
  PutSmallTree(*b);
  PutBigFileWithLink(*b);
  ASSERT_TRUE(b->Commit().ok());
  Selection linked;
  linked.uid = 2000;
  linked.name_tests.push_back([](std::string_view n) { return n.ends_with("-link"); });
  EXPECT_EQ(Selected(linked), std::vector<std::string>{"/r/a/b/big-link:3"});
  linked.name_tests.push_back([](std::string_view n) { return n.starts_with("small"); });
  EXPECT_TRUE(Selected(linked).empty());
  Selection none;  // every object, no name passing: only the root's, which is not tested
  none.name_tests.push_back([](std::string_view) { return false; });
  EXPECT_EQ(Selected(none), std::vector<std::string>{"/r:0"});
}

TEST_F(CatalogTest, SelectReadsPathsInChunksAcrossDeepDirectoriesAndStopsWhenAsked) {
  // More objects than one chunk of names (4,096), under directories 1 to 12 levels deep.
  auto b = Begin();
  EntryId dir = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(T(1))));
  std::vector<EntryId> dirs;
  std::vector<std::string> dir_paths;
  std::string path = "/r";
  for (int level = 1; level <= 12; ++level) {
    path += "/d" + std::to_string(level);
    dir = FATHOM_TEST_VALUE(b->Put(dir, "d" + std::to_string(level), DirAttrs(10 + level), At(T(1))));
    dirs.push_back(dir);
    dir_paths.push_back(path);
  }
  std::vector<std::string> expected;
  for (int i = 0; i < 6000; ++i) {
    const size_t at = static_cast<size_t>(i) % dirs.size();
    const std::string name = "f" + std::to_string(i);
    FATHOM_TEST_VALUE(b->Put(dirs[at], name, FileAttrs(100 + i, 5000 + i, 3000), At(T(1))));
    expected.push_back(dir_paths[at] + "/" + name + ":" + std::to_string(at + 2));
  }
  ASSERT_TRUE(b->Commit().ok());
  Selection sel;
  sel.uid = 3000;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Selected(sel), expected);
  size_t visits = 0;
  ASSERT_TRUE(catalog_->Select(sel, [&](const Visit&) { return ++visits < 4100; }).ok());
  EXPECT_EQ(visits, 4100u);
}

TEST_F(CatalogTest, SelectWithNameTestsHandsEachPassingNameWithItsOwnEntryAcrossChunks) {
  // Name tests make Select read ids first and entries only for the names that pass: across
  // several chunks of ids, each passing name must come with its own entry's attributes, and a
  // hard link whose other name fails is handed under the passing name alone.
  auto b = Begin();
  PutSmallTree(*b);
  PutBigFileWithLink(*b);
  const EntryId x = Id("/r/x");
  std::vector<std::string> expected{"/r/a/b/big-link size=1048576"};
  for (int i = 0; i < 9000; ++i) {
    const std::string name = "n" + std::to_string(i) + (i % 7 == 0 ? ".h5" : ".txt");
    FATHOM_TEST_VALUE(b->Put(x, name, FileAttrs(1000 + i, 10 + i, 2000), At(T(1))));
    if (i % 7 == 0) expected.push_back("/r/x/" + name + " size=" + std::to_string(10 + i));
  }
  ASSERT_TRUE(b->Commit().ok());
  Selection sel;
  sel.uid = 2000;
  sel.name_tests.push_back([](std::string_view n) { return n.ends_with(".h5") || n.ends_with("-link"); });
  std::vector<std::string> found;
  ASSERT_TRUE(catalog_->Select(sel, [&](const Visit& v) {
    found.push_back(std::string(v.path) + " size=" + std::to_string(v.node.attrs.size));
    EXPECT_EQ(v.node.name, v.path.substr(v.path.rfind('/') + 1));
    return true;
  }).ok());
  std::sort(found.begin(), found.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(found.size(), 1286u + 1u);  // i = 0, 7, ..., 8995, and the link
  EXPECT_EQ(found, expected);
}

TEST_F(CatalogTest, RememberedDirectoryPathsAreForgottenAtTheNextCommit) {
  // A long-lived reader keeps the paths it built between Select() calls; a rename of a
  // populated directory committed by the writer must show in its next answer.
  {
    auto b = Begin();
    PutSmallTree(*b);
    ASSERT_TRUE(b->Commit().ok());
  }
  CatalogOptions options;
  options.uri = uri_;
  options.read_only = true;
  options.remember_directory_paths = true;
  std::unique_ptr<Catalog> reader = FATHOM_TEST_VALUE(Catalog::Open(options));
  auto selected = [&] {
    std::vector<std::string> found;
    Selection sel;
    sel.type = S_IFREG;
    EXPECT_TRUE(reader->Select(sel, [&](const Visit& v) {
      found.push_back(std::string(v.path) + ":" + std::to_string(v.depth));
      return true;
    }).ok());
    return found;
  };
  EXPECT_EQ(selected(), std::vector<std::string>{"/r/a/b/f:3"});
  EXPECT_EQ(selected(), std::vector<std::string>{"/r/a/b/f:3"});  // from what it kept
  {
    auto b = Begin();
    ASSERT_TRUE(b->Move(Id("/r"), "a", Id("/r/x"), "moved", At(T(2)), Removal{}).ok());
    ASSERT_TRUE(b->Commit().ok());
  }
  EXPECT_EQ(selected(), std::vector<std::string>{"/r/x/moved/b/f:4"});
}

TEST_F(CatalogTest, AccountingFollowsAttributeChanges) {
  auto b = Begin();
  PutSmallTree(*b);
  EntryId x = Id("/r/x");
  FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(70, 10, 3000), At(T(2))));
  FATHOM_TEST_VALUE(b->Put(x, "f", FileAttrs(70, 40000, 3001), At(T(3))));
  ASSERT_TRUE(b->Commit().ok());
  std::vector<AcctRow> rows;
  for (const AcctRow& row : FATHOM_TEST_VALUE(catalog_->Accounting())) {
    if (row.uid >= 3000) rows.push_back(row);
  }
  AcctRow expected{3001, 100, S_IFREG, 1, 40000, (40000 + 511) / 512, {}};
  expected.buckets[4] = 1;
  EXPECT_EQ(rows, std::vector<AcctRow>{expected});
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, ScanGenerationRemovesOnlyUnseenNamesNotObservedSince) {
  uint64_t first = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  auto b = Begin();
  int64_t now = NowNs();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(now, first)));
  EntryId a = FATHOM_TEST_VALUE(b->Put(r, "a", DirAttrs(2), At(now, first)));
  FATHOM_TEST_VALUE(b->Put(a, "keep", FileAttrs(3, 1), At(now, first)));
  FATHOM_TEST_VALUE(b->Put(a, "gone", FileAttrs(4, 1), At(now, first)));
  EntryId old_dir = FATHOM_TEST_VALUE(b->Put(r, "old", DirAttrs(5), At(now, first)));
  FATHOM_TEST_VALUE(b->Put(old_dir, "inside", FileAttrs(6, 1), At(now, first)));
  ASSERT_TRUE(b->Commit().ok());
  ASSERT_TRUE(catalog_->FinishScan(first, nullptr).ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Info()).names, 6u);

  uint64_t second = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  EXPECT_EQ(second, first + 1);
  b = Begin();
  now = NowNs();
  FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(now, second)));
  FATHOM_TEST_VALUE(b->Put(r, "a", DirAttrs(2), At(now, second)));
  FATHOM_TEST_VALUE(b->Put(a, "keep", FileAttrs(3, 1), At(now, second)));
  // An event after the scan started: not seen by the scan, kept.
  FATHOM_TEST_VALUE(b->Put(a, "event", FileAttrs(7, 1), At(now)));
  ASSERT_TRUE(b->Commit().ok());
  std::vector<uint64_t> progress;
  ASSERT_TRUE(catalog_->FinishScan(second, [&](uint64_t n) { progress.push_back(n); }).ok());
  EXPECT_EQ(progress, std::vector<uint64_t>{2});  // "gone" and "old" (with what it holds)
  EXPECT_NE(Id("/r/a/keep"), 0);
  EXPECT_NE(Id("/r/a/event"), 0);
  EXPECT_EQ(Id("/r/a/gone"), 0);
  EXPECT_EQ(Id("/r/old"), 0);
  std::vector<std::string> removed = RemovedPaths();
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (std::vector<std::string>{"/r/a/gone", "/r/old", "/r/old/inside"}));
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
  // Finishing again changes nothing.
  ASSERT_TRUE(catalog_->FinishScan(second, nullptr).ok());
  EXPECT_FALSE(catalog_->FinishScan(second + 5, nullptr).ok());
}

TEST_F(CatalogTest, ScanRemovesAHardLinkItDidNotSeeWhileKeepingTheNameItSaw) {
  uint64_t first = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  auto b = Begin();
  int64_t now = NowNs();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(now, first)));
  FATHOM_TEST_VALUE(b->Put(r, "seen", FileAttrs(2, 10, 1000, 2), At(now, first)));
  FATHOM_TEST_VALUE(b->Put(r, "stale", FileAttrs(2, 10, 1000, 2), At(now, first)));
  ASSERT_TRUE(b->Commit().ok());
  ASSERT_TRUE(catalog_->FinishScan(first, nullptr).ok());
  uint64_t second = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  b = Begin();
  now = NowNs();
  FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(now, second)));
  EntryId id = FATHOM_TEST_VALUE(b->Put(r, "seen", FileAttrs(2, 10, 1000, 1), At(now, second)));
  ASSERT_TRUE(b->Commit().ok());
  ASSERT_TRUE(catalog_->FinishScan(second, nullptr).ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Paths(id)), std::vector<std::string>{"/r/seen"});
  EXPECT_TRUE(RemovedPaths().empty());  // the object lives on under its other name
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Usage(r, false)), FATHOM_TEST_VALUE(catalog_->Subtree(r)));
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

// Two workers of one scan list the two directories of a hard link; the listing made first
// may be written last. Both names stand, and the attributes read last stay.
TEST_F(CatalogTest, AScanKeepsAHardLinksNameListedBeforeTheOtherButWrittenAfter) {
  uint64_t generation = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  auto b = Begin();
  const int64_t now = NowNs();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(now, generation)));
  EntryId a = FATHOM_TEST_VALUE(b->Put(r, "a", DirAttrs(2), At(now, generation)));
  EntryId c = FATHOM_TEST_VALUE(b->Put(r, "c", DirAttrs(3), At(now, generation)));
  EntryId id = FATHOM_TEST_VALUE(b->Put(c, "later", FileAttrs(4, 20, 1000, 2), At(now + 2, generation)));
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Put(a, "earlier", FileAttrs(4, 10, 1000, 2), At(now + 1, generation))), id);
  // An event's older news of it adds no name.
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Put(r, "event", FileAttrs(4, 10, 1000, 2), At(now + 1))), id);
  ASSERT_TRUE(b->Commit().ok());
  ASSERT_TRUE(catalog_->FinishScan(generation, nullptr).ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Paths(id)), (std::vector<std::string>{"/r/a/earlier", "/r/c/later"}));
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Stat("/r/a/earlier"))->attrs.size, 20u);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

// An event removes a directory between two transactions of a scan that still lists it: what
// the scan read there is stale (nothing put, no error); anyone else naming it gets the error.
TEST_F(CatalogTest, AScanPutUnderADirectoryRemovedSinceIsStale) {
  uint64_t generation = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  auto b = Begin();
  const int64_t now = NowNs();
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(now, generation)));
  EntryId d = FATHOM_TEST_VALUE(b->Put(r, "d", DirAttrs(2), At(now, generation)));
  ASSERT_TRUE(b->Commit().ok());
  b = Begin();
  ASSERT_TRUE(b->Remove(r, "d", Removal{now + 2, 0, std::nullopt, {}}).ok());
  ASSERT_TRUE(b->Commit().ok());
  b = Begin();
  EXPECT_EQ(FATHOM_TEST_VALUE(b->Put(d, "f", FileAttrs(3, 1), At(now + 1, generation))), 0);
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Id("/r/d/f"), 0);
  b = Begin();
  Result<EntryId> unscanned = b->Put(d, "f", FileAttrs(3, 1), At(now + 3));
  ASSERT_FALSE(unscanned.ok());
  EXPECT_NE(unscanned.status().message().find("is not in the catalog"), std::string::npos) << unscanned.status().message();
  b.reset();
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
}

TEST_F(CatalogTest, ResumedScanReturnsTheUnfinishedGeneration) {
  uint64_t first = FATHOM_TEST_VALUE(catalog_->BeginScan("/r", false));
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->BeginScan("/r", true)), first);
  EXPECT_NE(FATHOM_TEST_VALUE(catalog_->BeginScan("/other", true)), first);
  ASSERT_TRUE(catalog_->FinishScan(first, nullptr).ok());
  EXPECT_GT(FATHOM_TEST_VALUE(catalog_->BeginScan("/r", true)), first);
}

TEST_F(CatalogTest, PutRefusesBadNamesAndParentsThatAreNotDirectories) {
  EntryId r = 0, f = 0;
  {
    auto b = Begin();
    r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(T(1))));
    f = FATHOM_TEST_VALUE(b->Put(r, "f", FileAttrs(2, 1), At(T(1))));
    auto bad_name = b->Put(r, "a/b", FileAttrs(3, 1), At(T(1)));
    ASSERT_FALSE(bad_name.ok());
    EXPECT_NE(bad_name.status().message().find("'a/b'"), std::string::npos);
    EXPECT_FALSE(b->PutRoot("relative", DirAttrs(9), At(T(1))).ok());
    auto nested = b->PutRoot("/r/sub", DirAttrs(10), At(T(1)));
    ASSERT_FALSE(nested.ok());
    EXPECT_NE(nested.status().message().find("/r/sub lies in a directory the catalog holds"),
              std::string::npos);
    ASSERT_TRUE(b->Commit().ok());
  }
  {
    auto b = Begin();
    auto under_file = b->Put(f, "g", FileAttrs(3, 1), At(T(1)));
    ASSERT_FALSE(under_file.ok());
    EXPECT_NE(under_file.status().message().find("entry " + std::to_string(f) + " is not a directory"),
              std::string::npos);
    // After a failure the batch refuses more work (its transaction is rolled back).
    EXPECT_FALSE(b->Put(r, "h", FileAttrs(4, 1), At(T(1))).ok());
  }
  auto b = Begin();
  auto missing = b->Put(999, "g", FileAttrs(3, 1), At(T(1)));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("entry 999 is not in the catalog"), std::string::npos);
}

TEST_F(CatalogTest, RecountReportsTamperedStatisticsAndRepairsThem) {
  auto b = Begin();
  PutSmallTree(*b);
  ASSERT_TRUE(b->Commit().ok());
  EntryId a = Id("/r/a");
  testing::ExecOnCatalog(uri_, "UPDATE tree SET files = files + 5 WHERE id = " + std::to_string(a) +
                                   "; UPDATE acct SET count = count + 1 WHERE type = " +
                                   std::to_string(S_IFDIR));
  RecountReport report = FATHOM_TEST_VALUE(catalog_->Recount(false));
  EXPECT_EQ(report.entries, 5u);
  EXPECT_EQ(report.names, 5u);
  ASSERT_EQ(report.differences.size(), 2u);
  EXPECT_EQ(report.differences[0], "accounting uid=1000 gid=100 type=dir: count 5 != 4");
  EXPECT_EQ(report.differences[1].rfind("subtree of directory " + std::to_string(a) + ": kept files 6,", 0), 0u)
      << report.differences[1];
  EXPECT_FALSE(FATHOM_TEST_VALUE(catalog_->Recount(true)).ok());  // reports what it repaired
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog_->Recount(false)).ok());
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog_->Subtree(a)).files, 1u);
}

TEST_F(CatalogTest, RemovedEntriesOlderThanTheRetentionExpireAtCommit) {
  CatalogOptions options;
  options.uri = testing::NewCatalogUri(dir_, "short");
  options.removed_retention = std::chrono::seconds(60);
  auto catalog = FATHOM_TEST_VALUE(Catalog::Open(options));
  auto b = FATHOM_TEST_VALUE(catalog->Begin());
  EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(T(0) - 200'000'000'000)));
  FATHOM_TEST_VALUE(b->Put(r, "old", FileAttrs(2, 1), At(T(0) - 200'000'000'000)));
  FATHOM_TEST_VALUE(b->Put(r, "new", FileAttrs(3, 1), At(T(0) - 200'000'000'000)));
  ASSERT_TRUE(b->Remove(r, "old", Removal{T(0) - 120'000'000'000, 1, {}, {}}).ok());
  ASSERT_TRUE(b->Remove(r, "new", Removal{T(0) - 30'000'000'000, 2, {}, {}}).ok());
  ASSERT_TRUE(b->Commit().ok());
  std::vector<uint64_t> events;
  ASSERT_TRUE(catalog->Removed("", 0, [&](const RemovedEntry& e) {
    events.push_back(e.removal.event_id);
    return true;
  }).ok());
  EXPECT_EQ(events, std::vector<uint64_t>{2});
}

TEST(CatalogOpenTest, PostgresqlUriOpensThePostgresqlBackend) {
  // Nothing listens on port 1: the error is the PostgreSQL backend's, naming the server.
  CatalogOptions options;
  options.uri = "postgresql://fathom@127.0.0.1:1/catalog";
  auto opened = Catalog::Open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("catalog database \"catalog\" on 127.0.0.1:1"), std::string::npos)
      << opened.status().message();
  options.uri = "postgres://fathom@127.0.0.1:1/catalog";
  opened = Catalog::Open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("127.0.0.1:1"), std::string::npos) << opened.status().message();
}

TEST(CatalogOpenTest, SqlitePrefixAndPlainFileOpenTheSameCatalog) {
  fathom::testing::TempDir dir;
  {
    auto c = testing::OpenCatalogOrDie("sqlite:" + (dir / "c.db"));
    ASSERT_NE(c, nullptr);
    auto b = FATHOM_TEST_VALUE(c->Begin());
    FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(NowNs())));
    ASSERT_TRUE(b->Commit().ok());
  }
  auto c = testing::OpenCatalogOrDie(dir / "c.db", true);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(FATHOM_TEST_VALUE(c->Info()).roots, std::vector<std::string>{"/r"});
}

}  // namespace
}  // namespace fathom::catalog
