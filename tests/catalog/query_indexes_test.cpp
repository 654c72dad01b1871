// The SQLite catalog's query indexes (owner, size, mtime) around a first scan: an empty
// catalog's first scan drops them and builds them at its end; a scan into a catalog that
// holds entries keeps them; a first scan killed halfway leaves them to the next writer.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "catalog/catalog_test_util.h"
#include "catalog/freshness.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;

const std::vector<std::string> kQueryIndexes = {"entries_mtime", "entries_size", "entries_uid_size"};

// The query indexes present in the catalog file, sorted.
std::vector<std::string> QueryIndexes(const std::string& path) {
  std::vector<std::string> names;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN "
                               "('entries_uid', 'entries_uid_size', 'entries_size', 'entries_mtime') ORDER BY name",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW) names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return names;
}

class QueryIndexesTest : public ::testing::Test {
 protected:
  void PutTree(Catalog& catalog, uint64_t generation) {
    auto batch = catalog.Begin();
    ASSERT_TRUE(batch.ok()) << batch.status().message();
    const int64_t now = NowNs();
    EntryId r = FATHOM_TEST_VALUE((*batch)->PutRoot("/r", DirAttrs(1), At(now, generation)));
    for (uint64_t ino = 2; ino < 12; ++ino)
      FATHOM_TEST_VALUE((*batch)->Put(r, "f" + std::to_string(ino), FileAttrs(ino, static_cast<int64_t>(ino) * 100), At(now, generation)));
    ASSERT_TRUE((*batch)->Commit().ok());
  }

  fathom::testing::TempDir dir_;
  std::string path_ = dir_.path() + "/catalog.db";
};

TEST_F(QueryIndexesTest, AFirstScanBuildsThemAtItsEndAndTheQueriesUseThem) {
  auto catalog = testing::OpenCatalogOrDie(path_);
  EXPECT_EQ(QueryIndexes(path_), kQueryIndexes);  // a new catalog has them
  uint64_t generation = FATHOM_TEST_VALUE(catalog->BeginScan("/r", false));
  EXPECT_TRUE(QueryIndexes(path_).empty());
  PutTree(*catalog, generation);
  ASSERT_TRUE(catalog->FinishScan(generation, nullptr).ok());
  EXPECT_EQ(QueryIndexes(path_), kQueryIndexes);
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog->Recount(false)).ok());
  Selection big;
  big.min_size = 1000;
  big.type = S_IFREG;
  std::vector<std::string> selected;
  ASSERT_TRUE(catalog->Select(big, [&](const Visit& v) {
    selected.emplace_back(v.path);
    return true;
  }).ok());
  EXPECT_EQ(selected, (std::vector<std::string>{"/r/f10", "/r/f11"}));
}

TEST_F(QueryIndexesTest, AScanIntoACatalogThatHoldsEntriesKeepsThem) {
  auto catalog = testing::OpenCatalogOrDie(path_);
  uint64_t first = FATHOM_TEST_VALUE(catalog->BeginScan("/r", false));
  PutTree(*catalog, first);
  ASSERT_TRUE(catalog->FinishScan(first, nullptr).ok());
  uint64_t second = FATHOM_TEST_VALUE(catalog->BeginScan("/r", false));
  EXPECT_EQ(QueryIndexes(path_), kQueryIndexes);
  ASSERT_TRUE(catalog->FinishScan(second, nullptr).ok());
}

TEST_F(QueryIndexesTest, AFirstScanThatNeverFinishedLeavesThemToTheNextWriter) {
  {
    auto catalog = testing::OpenCatalogOrDie(path_);
    uint64_t generation = FATHOM_TEST_VALUE(catalog->BeginScan("/r", false));
    PutTree(*catalog, generation);
  }  // closed without FinishScan, as a killed scan leaves it
  EXPECT_TRUE(QueryIndexes(path_).empty());
  auto writer = testing::OpenCatalogOrDie(path_);
  EXPECT_EQ(QueryIndexes(path_), kQueryIndexes);
}

// The plan SQLite makes for `sql` on the catalog file, its detail lines joined.
std::string QueryPlan(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &stmt, nullptr), SQLITE_OK);
  std::string plan;
  while (sqlite3_step(stmt) == SQLITE_ROW) plan += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return plan;
}

// A catalog made before the owner's index held the size: the next writer replaces the index.
TEST_F(QueryIndexesTest, AnOlderOwnerIndexIsReplacedByOneThatHoldsTheSize) {
  { auto catalog = testing::OpenCatalogOrDie(path_); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP INDEX entries_uid_size; CREATE INDEX entries_uid ON entries(uid)", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(QueryIndexes(path_), (std::vector<std::string>{"entries_mtime", "entries_size", "entries_uid"}));
  auto writer = testing::OpenCatalogOrDie(path_);
  EXPECT_EQ(QueryIndexes(path_), kQueryIndexes);
  EXPECT_EQ(QueryPlan(path_, "SELECT id FROM entries WHERE uid = 7 AND size >= 1000"),
            "SEARCH entries USING COVERING INDEX entries_uid_size (uid=? AND size>?)");
}

}  // namespace
}  // namespace fathom::catalog
