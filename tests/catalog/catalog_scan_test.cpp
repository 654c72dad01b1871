// ScanIntoCatalog in many small transactions (a directory's names spread over several, a
// read-ahead group cut by commits) gives the catalog one scan in a single transaction gives a
// SQLite reference: the same names, attributes, subtree totals and accounting, and statistics
// that recount clean — after a first scan and after a rescan of the changed tree. Built twice
// (catalog_test_target.h): on SQLite and on PostgreSQL, whose backend sends new rows by COPY
// and answers lookups from what it holds and read ahead.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "catalog/catalog_test_target.h"
#include "catalog/catalog_test_util.h"
#include "catalog/sync/catalog_scan.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

// Every name below `root` with what the catalog keeps of it, and every directory's totals.
std::vector<std::string> Contents(Catalog& catalog, const std::string& root) {
  std::vector<std::string> out;
  Status walked = catalog.Walk(root, [&](const Visit& v) {
    const Attrs& a = v.node.attrs;
    std::string line = std::string(v.path) + " mode=" + std::to_string(a.mode) + " ino=" + std::to_string(a.ino) +
                       " nlink=" + std::to_string(a.nlink) + " size=" + std::to_string(a.size) +
                       " mtime=" + std::to_string(a.mtime_ns) + " symlink=" + a.symlink;
    if (S_ISDIR(a.mode)) {
      auto totals = catalog.Subtree(v.node.id);
      EXPECT_TRUE(totals.ok()) << totals.status().message();
      if (totals.ok()) {
        const Totals& t = totals.value();
        line += " totals=" + std::to_string(t.files) + "/" + std::to_string(t.dirs) + "/" +
                std::to_string(t.symlinks) + "/" + std::to_string(t.size) + "/" + std::to_string(t.blocks);
      }
    }
    out.push_back(std::move(line));
    return WalkStep::kContinue;
  });
  EXPECT_TRUE(walked.ok()) << walked.message();
  auto accounting = catalog.Accounting();
  EXPECT_TRUE(accounting.ok());
  for (const AcctRow& row : accounting.value()) {
    out.push_back("acct " + std::to_string(row.uid) + " " + std::to_string(row.type) + " " +
                  std::to_string(row.count) + " " + std::to_string(row.size));
  }
  RecountReport report = catalog.Recount(false).value();
  EXPECT_TRUE(report.ok()) << report.differences.front();
  return out;
}

class CatalogScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    for (int d = 0; d < 12; ++d) {
      const std::string sub = tree_ + "/d" + std::to_string(d % 3) + "/e" + std::to_string(d);
      fathom::testing::MakeDirs(sub + "/f");
      for (int i = 0; i < 15; ++i) {
        fathom::testing::WriteFile(sub + "/x" + std::to_string(i), std::string(static_cast<size_t>(d * 50 + i), 'x'));
      }
      ASSERT_EQ(link((sub + "/x0").c_str(), (sub + "/f/x0-link").c_str()), 0);
      ASSERT_EQ(symlink("../x1", (sub + "/f/to-x1").c_str()), 0);
    }
    tested_ = fathom::testing::OpenCatalogOrDie(fathom::testing::NewCatalogUri(dir_, "scanned"));
    reference_ = fathom::testing::OpenCatalogOrDie(fathom::testing::NewSqliteUri(dir_, "reference"));
    ASSERT_NE(tested_, nullptr);
    ASSERT_NE(reference_, nullptr);
  }

  void ScanBoth() {
    std::atomic<bool> stop{false};
    CatalogScanOptions small;
    small.commit_entries = 7;
    small.scan.threads = 2;
    auto scanned = ScanIntoCatalog(*tested_, {tree_}, small, {}, stop);
    ASSERT_TRUE(scanned.ok()) << scanned.status().message();
    auto reference = ScanIntoCatalog(*reference_, {tree_}, {}, {}, stop);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    EXPECT_EQ(scanned.value().entries, reference.value().entries);
    EXPECT_EQ(scanned.value().removed, reference.value().removed);
  }

  fathom::testing::TempDir dir_;
  std::string tree_;
  std::unique_ptr<Catalog> tested_, reference_;
};

TEST_F(CatalogScanTest, SmallTransactionsGiveWhatOneGivesFirstScanAndRescan) {
  ScanBoth();
  const std::vector<std::string> first = Contents(*tested_, tree_);
  EXPECT_EQ(first, Contents(*reference_, tree_));
  // root, d0..d2, 12 × (e, f, 15 x, link, symlink)
  EXPECT_EQ(first.size() - tested_->Accounting().value().size(), 1u + 3 + 12 * 19);

  for (int i = 0; i < 15; i += 2) ASSERT_EQ(unlink((tree_ + "/d1/e4/x" + std::to_string(i)).c_str()), 0);
  fathom::testing::WriteFile(tree_ + "/d2/e5/x3", "changed");
  fathom::testing::Rename(tree_ + "/d0/e3", tree_ + "/d1/e3-moved");
  ASSERT_EQ(unlink((tree_ + "/d2/e8/x1").c_str()), 0);
  fathom::testing::MakeDirs(tree_ + "/d2/e8/x1/now-a-directory");
  ScanBoth();
  const std::vector<std::string> second = Contents(*tested_, tree_);
  EXPECT_EQ(second, Contents(*reference_, tree_));
  EXPECT_EQ(second.size() - tested_->Accounting().value().size(), 1u + 3 + 12 * 19 - 8 + 1);
}

// What a backend read ahead for announced objects stays true once what it held is sent in the
// middle of a transaction: a new file's second name, put after another directory's lookup
// sent the first (PostgreSQL: ParentOf reads the names of a directory of an earlier
// transaction), is another name of the same object, not a second object.
TEST_F(CatalogScanTest, AnAnnouncedObjectPutUnderTwoNamesAcrossASendIsOneObject) {
  for (Catalog* catalog : {tested_.get(), reference_.get()}) {
    {
      auto b = catalog->Begin().value();
      const EntryId root = b->PutRoot("/r", fathom::testing::DirAttrs(1), fathom::testing::At(10)).value();
      ASSERT_NE(b->Put(root, "a", fathom::testing::DirAttrs(2), fathom::testing::At(10)).value(), 0);
      ASSERT_NE(b->Put(root, "b", fathom::testing::DirAttrs(3), fathom::testing::At(10)).value(), 0);
      ASSERT_TRUE(b->Commit().ok());
    }
    auto b = catalog->Begin().value();
    const EntryId a = b->Lookup("/r/a").value();
    const EntryId dir_b = b->Lookup("/r/b").value();
    const Attrs linked = fathom::testing::FileAttrs(50, 123, 1000, /*nlink=*/2);
    const Identity objects[] = {{linked.dev, linked.ino}, {42, 51}};
    ASSERT_TRUE(b->Expect(objects).ok());
    const EntryId first = b->Put(a, "n1", linked, fathom::testing::At(20)).value();
    const EntryId second = b->Put(dir_b, "n2", linked, fathom::testing::At(20)).value();
    EXPECT_EQ(first, second);
    ASSERT_NE(b->Put(dir_b, "other", fathom::testing::FileAttrs(51, 7), fathom::testing::At(20)).value(), 0);
    ASSERT_TRUE(b->Commit().ok());
    EXPECT_EQ(catalog->Paths(first).value(), (std::vector<std::string>{"/r/a/n1", "/r/b/n2"}));
  }
  EXPECT_EQ(Contents(*tested_, "/r"), Contents(*reference_, "/r"));
}

}  // namespace
}  // namespace fathom::catalog
