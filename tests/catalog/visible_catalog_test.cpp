// VisibleTo(): a catalog as one user sees it, on made-up attributes (owners, groups and modes
// chosen per directory), for what the command-line tests cannot compare with GNU tools: the
// accounting, the kept totals, removed entries and refused writes.
#include <gtest/gtest.h>

#include "catalog/catalog_test_util.h"
#include "fathom/event.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;

Attrs Dir(uint64_t ino, uint32_t uid, uint32_t gid, uint32_t perms) {
  Attrs a = DirAttrs(ino, uid);
  a.gid = gid;
  a.mode = S_IFDIR | perms;
  return a;
}

class VisibleCatalogTest : public ::testing::Test {
 protected:
  // /r: pub/f1 (uid 1000, 100 B), priv/ (root, 0700) f2 (200 B), mine/ (1000, 0700) f3 (300 B),
  // grp/ (root:100, 0750) f4 (root, 400 B).
  void SetUp() override {
    auto catalog = testing::OpenCatalogOrDie(dir_ / "catalog.db");
    ASSERT_NE(catalog, nullptr);
    auto b = catalog->Begin().value();
    const int64_t t = NowNs();
    EntryId r = b->PutRoot("/r", Dir(1, 0, 0, 0755), At(t)).value();
    EntryId pub = b->Put(r, "pub", Dir(2, 0, 0, 0755), At(t)).value();
    EntryId priv = b->Put(r, "priv", Dir(3, 0, 0, 0700), At(t)).value();
    EntryId mine = b->Put(r, "mine", Dir(4, 1000, 1000, 0700), At(t)).value();
    EntryId grp = b->Put(r, "grp", Dir(5, 0, 100, 0750), At(t)).value();
    ASSERT_NE(b->Put(pub, "f1", FileAttrs(6, 100, 1000), At(t)).value(), 0);
    ASSERT_NE(b->Put(priv, "f2", FileAttrs(7, 200, 1000), At(t)).value(), 0);
    ASSERT_NE(b->Put(mine, "f3", FileAttrs(8, 300, 1000), At(t)).value(), 0);
    ASSERT_NE(b->Put(grp, "f4", FileAttrs(9, 400, 0), At(t)).value(), 0);
    ASSERT_TRUE(b->Remove(mine, "f3", Removal{t + 1, 1, {}, {}}).ok());
    ASSERT_TRUE(b->Remove(grp, "f4", Removal{t + 1, 2, {}, {}}).ok());
    ASSERT_NE(b->Put(mine, "f3", FileAttrs(10, 300, 1000), At(t + 2)).value(), 0);
    ASSERT_NE(b->Put(grp, "f4", FileAttrs(11, 400, 0), At(t + 2)).value(), 0);
    ASSERT_TRUE(b->Commit().ok());
    member_ = VisibleTo(testing::OpenCatalogOrDie(dir_ / "catalog.db", true), Caller{1000, {100}});
    stranger_ = VisibleTo(std::move(catalog), Caller{2000, {}});
  }

  std::vector<std::string> Walked(Catalog& c) {
    std::vector<std::string> paths;
    EXPECT_TRUE(c.Walk("/r", [&](const Visit& v) {
      paths.emplace_back(v.path);
      return WalkStep::kContinue;
    }).ok());
    return paths;
  }

  ::fathom::testing::TempDir dir_;
  std::unique_ptr<Catalog> member_, stranger_;
};

TEST_F(VisibleCatalogTest, NamesAreSeenInDirectoriesTheCallerMayReadAndSearch) {
  EXPECT_EQ(Walked(*member_), (std::vector<std::string>{"/r", "/r/grp", "/r/grp/f4", "/r/mine",
                                                        "/r/mine/f3", "/r/priv", "/r/pub", "/r/pub/f1"}));
  EXPECT_EQ(Walked(*stranger_),
            (std::vector<std::string>{"/r", "/r/grp", "/r/mine", "/r/priv", "/r/pub", "/r/pub/f1"}));
  EXPECT_FALSE(stranger_->Stat("/r/priv/f2").value());
  EXPECT_TRUE(stranger_->Stat("/r/priv").value());
  const EntryId priv = stranger_->Stat("/r/priv").value()->id;
  int children = 0;
  ASSERT_TRUE(stranger_->Children(priv, [&](const Node&) { return ++children, true; }).ok());
  EXPECT_EQ(children, 0);
  Selection by_owner;
  by_owner.uid = 1000;
  by_owner.type = S_IFREG;
  std::vector<std::string> selected;
  ASSERT_TRUE(member_->Select(by_owner, [&](const Visit& v) { return selected.emplace_back(v.path), true; }).ok());
  std::sort(selected.begin(), selected.end());
  EXPECT_EQ(selected, (std::vector<std::string>{"/r/mine/f3", "/r/pub/f1"}));
}

TEST_F(VisibleCatalogTest, TotalsAndAccountingAddUpWhatTheCallerSees) {
  const EntryId root = stranger_->Stat("/r").value()->id;
  Totals seen = stranger_->Subtree(root).value();
  EXPECT_EQ(seen.dirs, 5u);
  EXPECT_EQ(seen.files, 1u);
  EXPECT_EQ(seen.size, 5 * 4096 + 100);
  EXPECT_EQ(stranger_->Usage(root, false).value(), seen);
  // Each directory's totals, kept from the walk of the root, are what a walk of it finds.
  auto subtree = [](Catalog& c, const std::string& path) { return c.Subtree(c.Stat(path).value()->id).value(); };
  const Totals grp = subtree(*member_, "/r/grp"), priv = subtree(*member_, "/r/priv");
  EXPECT_EQ(subtree(*member_, "/r").size, 5 * 4096 + 100 + 300 + 400);
  EXPECT_EQ(grp.dirs, 1u);
  EXPECT_EQ(grp.files, 1u);
  EXPECT_EQ(grp.size, 4096 + 400);
  EXPECT_EQ(priv.entries(), 1u);  // f2 is root's, in root's 0700 directory
  auto fresh = VisibleTo(testing::OpenCatalogOrDie(dir_ / "catalog.db", true), Caller{1000, {100}});
  EXPECT_EQ(subtree(*fresh, "/r/grp"), grp);  // asked first, then the root's walk reuses it
  EXPECT_EQ(subtree(*fresh, "/r").size, 5 * 4096 + 100 + 300 + 400);
  std::vector<AcctRow> rows = member_->Accounting().value();
  uint64_t files_1000 = 0, files_0 = 0;
  int64_t size_1000 = 0;
  for (const AcctRow& row : rows) {
    if (row.type != S_IFREG) continue;
    if (row.uid == 1000) files_1000 += row.count, size_1000 += row.size;
    if (row.uid == 0) files_0 += row.count;
  }
  EXPECT_EQ(files_1000, 2u);  // f1 and f3; f2 lies in priv
  EXPECT_EQ(size_1000, 400);
  EXPECT_EQ(files_0, 1u);     // f4, through the group
}

TEST_F(VisibleCatalogTest, RemovedEntriesAreTheCallersOwn) {
  std::vector<std::string> removed;
  ASSERT_TRUE(member_->Removed("", 0, [&](const RemovedEntry& e) { return removed.push_back(e.path), true; }).ok());
  EXPECT_EQ(removed, std::vector<std::string>{"/r/mine/f3"});
}

TEST_F(VisibleCatalogTest, WritesAreRefused) {
  auto batch = stranger_->Begin();
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().message(),
            "the catalog as user 2000 sees is read-only: cannot write to it (run as root, without "
            "--as-user)");
  EXPECT_FALSE(stranger_->Recount(false).ok());
}

}  // namespace
}  // namespace fathom::catalog
