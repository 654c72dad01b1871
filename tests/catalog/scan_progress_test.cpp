// What `fathom scan` shows while it runs: the line's exact text, and the ETA taken from the
// sizes an earlier scan left in the catalog (a real SQLite catalog).
#include <gtest/gtest.h>

#include "catalog/catalog_test_util.h"
#include "catalog/freshness.h"
#include "catalog/sync/scan_progress.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;

scan::ScanProgress Progress(uint64_t entries, uint64_t pending, int seconds) {
  scan::ScanProgress p;
  p.entries = entries;
  p.directories_pending = pending;
  p.elapsed = std::chrono::seconds(seconds);
  return p;
}

TEST(ScanProgressTest, TheLineGivesAnEtaOnlyWhenAnEarlierScanSizedTheTree) {
  EXPECT_EQ(ScanProgressLine(Progress(1200, 3, 2), 0), "scanned 1200 entries (600/s), 3 directories left, 2 s");
  EXPECT_EQ(ScanProgressLine(Progress(1200, 3, 2), 10000),
            "scanned 1200 entries (600/s), 3 directories left, 2 s, about 15 s left");
  EXPECT_EQ(ScanProgressLine(Progress(1202, 0, 2), 1200),
            "scanned 1202 entries (601/s), 0 directories left, 2 s, past the 1200 entries of the last scan");
  EXPECT_EQ(ScanProgressLine(Progress(0, 1, 0), 1200), "scanned 0 entries (0/s), 1 directories left, 0 s");
}

TEST(ScanProgressTest, ExpectedEntriesAreTheKeptTotalsBelowTheRoots) {
  fathom::testing::TempDir dir;
  auto catalog = testing::OpenCatalogOrDie(dir.path() + "/catalog.db");
  ASSERT_NE(catalog, nullptr);
  EXPECT_EQ(ExpectedEntries(*catalog, {"/r"}), 0u);
  auto batch = catalog->Begin();
  ASSERT_TRUE(batch.ok());
  const int64_t now = NowNs();
  EntryId r = FATHOM_TEST_VALUE((*batch)->PutRoot("/r", DirAttrs(1), At(now)));
  EntryId a = FATHOM_TEST_VALUE((*batch)->Put(r, "a", DirAttrs(2), At(now)));
  for (uint64_t ino = 3; ino < 8; ++ino) FATHOM_TEST_VALUE((*batch)->Put(a, "f" + std::to_string(ino), FileAttrs(ino, 1), At(now)));
  EntryId q = FATHOM_TEST_VALUE((*batch)->PutRoot("/q", DirAttrs(10), At(now)));
  FATHOM_TEST_VALUE((*batch)->Put(q, "g", FileAttrs(11, 1), At(now)));
  ASSERT_TRUE((*batch)->Commit().ok());
  EXPECT_EQ(ExpectedEntries(*catalog, {"/r"}), 6u);       // a and its five files
  EXPECT_EQ(ExpectedEntries(*catalog, {"/r/a"}), 5u);     // a subtree rescanned
  EXPECT_EQ(ExpectedEntries(*catalog, {"/r", "/q", "/none"}), 7u);
}

}  // namespace
}  // namespace fathom::catalog
