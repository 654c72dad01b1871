// DirectorySettler on real trees and a real SQLite catalog: the catalog is filled by a scan,
// the tree is then changed behind its back, and settling the named directories (then scanning
// what the settler says is unknown) must leave no difference — without ever putting a
// directory inside its own subtree, whatever the catalog believed.
#include "catalog/follow/directory_settler.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "catalog/sync/catalog_scan.h"
#include "catalog/follow/drift.h"
#include "fathom/event.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::MakeDirs;
using testing::Rename;
using testing::WriteFile;

class DirectorySettlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_ / "root";
    MakeDirs(root_);
    CatalogOptions options;
    options.uri = dir_ / "catalog.db";
    auto opened = Catalog::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    catalog_ = std::move(opened.value());
  }

  Status Scan(const std::string& path) {
    std::atomic<bool> stop{false};
    return ScanIntoCatalog(*catalog_, {path}, {}, {}, stop).status();
  }

  // Settles `dirs` (relative to the root) in one batch; returns the subtrees to rescan.
  std::vector<std::string> Settle(const std::vector<std::string>& dirs, uint64_t* corrected = nullptr) {
    auto batch = catalog_->Begin();
    EXPECT_TRUE(batch.ok());
    Observation seen;
    seen.time_ns = NowNs();
    const std::vector<std::string> roots{root_};
    DirectorySettler settler(*catalog_, *batch.value(), roots, seen, nullptr);
    std::vector<std::string> rescans;
    for (const std::string& d : dirs) {
      Status s = settler.Settle(d.empty() ? root_ : root_ + "/" + d, rescans);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    EXPECT_TRUE(batch.value()->Commit().ok());
    if (corrected) *corrected = settler.names_corrected();
    return rescans;
  }

  std::vector<std::string> Drift() { return catalog::Drift(*catalog_, root_); }

  testing::TempDir dir_;
  std::string root_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(DirectorySettlerTest, NamesAreRemovedAddedAndRefreshedFromTheListing) {
  MakeDirs(root_ + "/d");
  WriteFile(root_ + "/d/stale", "1");
  WriteFile(root_ + "/d/kept", "1");
  ASSERT_TRUE(Scan(root_).ok());
  ASSERT_EQ(::unlink((root_ + "/d/stale").c_str()), 0);
  WriteFile(root_ + "/d/kept", "12345");
  WriteFile(root_ + "/d/new", "1");
  uint64_t corrected = 0;
  EXPECT_EQ(Settle({"d"}, &corrected), std::vector<std::string>{});
  EXPECT_EQ(corrected, 3u);  // stale removed, kept refreshed, new added
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(DirectorySettlerTest, SwappedDirectoriesAreLeftToARescanOfEach) {
  MakeDirs(root_ + "/a");
  MakeDirs(root_ + "/b");
  WriteFile(root_ + "/a/x", "1");
  WriteFile(root_ + "/b/y", "1");
  ASSERT_TRUE(Scan(root_).ok());
  Rename(root_ + "/a", root_ + "/t");
  Rename(root_ + "/b", root_ + "/a");
  Rename(root_ + "/t", root_ + "/b");
  // Settling below a name that leads elsewhere settles that name in its parent instead.
  std::vector<std::string> rescans = Settle({"a"});
  std::sort(rescans.begin(), rescans.end());  // in the order the directory lists them
  EXPECT_EQ(rescans, (std::vector<std::string>{root_ + "/a", root_ + "/b"}));
  ASSERT_TRUE(Scan(root_ + "/a").ok());
  ASSERT_TRUE(Scan(root_ + "/b").ok());
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

// The catalog holds q inside p; on disk p now lies inside q. Settling p's new path must not
// put q inside its own subtree.
TEST_F(DirectorySettlerTest, ADirectoryNowAboveItsFormerParentIsNeverPutInsideItself) {
  MakeDirs(root_ + "/p/q");
  WriteFile(root_ + "/p/q/f", "1");
  ASSERT_TRUE(Scan(root_).ok());
  Rename(root_ + "/p/q", root_ + "/q");
  Rename(root_ + "/p", root_ + "/q/p");
  const std::vector<std::string> rescans = Settle({"q/p", "q"});
  EXPECT_EQ(rescans, std::vector<std::string>{root_ + "/q"});
  ASSERT_TRUE(Scan(root_ + "/q").ok());
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(DirectorySettlerTest, AGoneDirectoryIsRemovedByItsParent) {
  MakeDirs(root_ + "/d/e");
  WriteFile(root_ + "/d/e/f", "1");
  ASSERT_TRUE(Scan(root_).ok());
  testing::RemoveTree(root_ + "/d");
  EXPECT_EQ(Settle({"d/e"}), std::vector<std::string>{});
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

}  // namespace
}  // namespace fathom::catalog
