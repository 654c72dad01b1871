// The SQLite catalog's table of directory names (dirs), from which paths above a query's
// answers are built: the triggers keep it equal to the directories' names through creations,
// renames, removals and a type change; a recount compares it and repairs it; a catalog without
// it (an older fathom's) is still read, and its first writer builds it; a first scan drops it
// and builds it at its end.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <set>
#include <string>
#include <tuple>

#include "catalog/catalog_test_util.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;
using Row = std::tuple<int64_t, int64_t, std::string>;  // (id, parent, name)

// Runs `sql` on the catalog file outside fathom; its rows as (int, int, text).
std::set<Row> Query(const std::string& path, const std::string& sql) {
  std::set<Row> rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2));
    rows.emplace(sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1), text != nullptr ? text : "");
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

std::set<Row> Kept(const std::string& path) { return Query(path, "SELECT id, parent, name FROM dirs"); }

// The directories' names as the names and entries tables say.
std::set<Row> Real(const std::string& path) {
  return Query(path, "SELECT n.id, n.parent, n.name FROM names n JOIN entries e ON e.id = n.id"
                     " WHERE (e.mode & 61440) = 16384");
}

std::vector<std::string> SelectedPaths(Catalog& catalog) {
  Selection big;
  big.min_size = 1000;
  big.type = S_IFREG;
  std::vector<std::string> paths;
  EXPECT_TRUE(catalog.Select(big, [&](const Visit& v) {
    paths.emplace_back(v.path);
    return true;
  }).ok());
  std::sort(paths.begin(), paths.end());
  return paths;
}

class DirectoryNamesTest : public ::testing::Test {
 protected:
  // /r/a/b/c with a big file in c, and /r/x.
  void PutTree(Catalog& catalog) {
    auto batch = FATHOM_TEST_VALUE(catalog.Begin());
    r_ = FATHOM_TEST_VALUE(batch->PutRoot("/r", DirAttrs(1), At(10)));
    a_ = FATHOM_TEST_VALUE(batch->Put(r_, "a", DirAttrs(2), At(10)));
    b_ = FATHOM_TEST_VALUE(batch->Put(a_, "b", DirAttrs(3), At(10)));
    c_ = FATHOM_TEST_VALUE(batch->Put(b_, "c", DirAttrs(4), At(10)));
    x_ = FATHOM_TEST_VALUE(batch->Put(r_, "x", DirAttrs(5), At(10)));
    FATHOM_TEST_VALUE(batch->Put(c_, "big", FileAttrs(6, 5000), At(10)));
    FATHOM_TEST_VALUE(batch->Put(a_, "small", FileAttrs(7, 10), At(10)));
    ASSERT_TRUE(batch->Commit().ok());
  }

  fathom::testing::TempDir dir_;
  std::string path_ = dir_.path() + "/catalog.db";
  EntryId r_ = 0, a_ = 0, b_ = 0, c_ = 0, x_ = 0;
};

TEST_F(DirectoryNamesTest, TheTriggersKeepThemThroughCreationsRenamesRemovalsAndATypeChange) {
  auto catalog = testing::OpenCatalogOrDie(path_);
  PutTree(*catalog);
  EXPECT_EQ(Kept(path_), (std::set<Row>{{r_, 0, "/r"}, {a_, r_, "a"}, {b_, a_, "b"}, {c_, b_, "c"}, {x_, r_, "x"}}));
  EXPECT_EQ(SelectedPaths(*catalog), (std::vector<std::string>{"/r/a/b/c/big"}));
  {
    auto batch = FATHOM_TEST_VALUE(catalog->Begin());
    // A populated directory renamed across levels, a file renamed (no directory name changes).
    ASSERT_TRUE(batch->Move(a_, "b", x_, "b2", At(20), Removal{}).ok());
    ASSERT_TRUE(batch->Move(a_, "small", x_, "small2", At(20), Removal{}).ok());
    ASSERT_TRUE(batch->Commit().ok());
  }
  EXPECT_EQ(Kept(path_), (std::set<Row>{{r_, 0, "/r"}, {a_, r_, "a"}, {b_, x_, "b2"}, {c_, b_, "c"}, {x_, r_, "x"}}));
  EXPECT_EQ(SelectedPaths(*catalog), (std::vector<std::string>{"/r/x/b2/c/big"}));
  {
    auto batch = FATHOM_TEST_VALUE(catalog->Begin());
    ASSERT_TRUE(batch->Remove(x_, "b2", Removal{30, 1, {}, {}}).ok());  // with c below it
    ASSERT_TRUE(batch->Commit().ok());
  }
  EXPECT_EQ(Kept(path_), (std::set<Row>{{r_, 0, "/r"}, {a_, r_, "a"}, {x_, r_, "x"}}));
  EXPECT_TRUE(SelectedPaths(*catalog).empty());
  {
    // The object a's identity seen again as a file (the directory went and its inode was
    // reused, the events missed): its name is no longer a directory's.
    auto batch = FATHOM_TEST_VALUE(catalog->Begin());
    FATHOM_TEST_VALUE(batch->Put(r_, "a", FileAttrs(2, 9000), At(40)));
    ASSERT_TRUE(batch->Commit().ok());
  }
  EXPECT_EQ(Kept(path_), Real(path_));
  EXPECT_EQ(Kept(path_).count(Row{a_, r_, "a"}), 0u);
  RecountReport after = FATHOM_TEST_VALUE(catalog->Recount(false));
  EXPECT_TRUE(after.ok()) << ::testing::PrintToString(after.differences);
}

TEST_F(DirectoryNamesTest, ARecountFindsATamperedTableAndRepairsIt) {
  {
    auto catalog = testing::OpenCatalogOrDie(path_);
    PutTree(*catalog);
  }
  Exec(path_, "DELETE FROM dirs WHERE name = CAST('b' AS BLOB); INSERT INTO dirs VALUES(99, 1, CAST('ghost' AS BLOB))");
  auto catalog = testing::OpenCatalogOrDie(path_);
  RecountReport report = FATHOM_TEST_VALUE(catalog->Recount(false));
  ASSERT_EQ(report.differences.size(), 2u) << ::testing::PrintToString(report.differences);
  EXPECT_EQ(report.differences[0], "directory name kept but not a name: 'ghost' (directory 99 in 1)");
  EXPECT_EQ(report.differences[1], "directory name missing from the kept ones: 'b' (directory " +
                                       std::to_string(b_) + " in " + std::to_string(a_) + ")");
  EXPECT_FALSE(FATHOM_TEST_VALUE(catalog->Recount(true)).ok());  // reports, then repairs
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog->Recount(false)).ok());
  EXPECT_EQ(Kept(path_), Real(path_));
}

TEST_F(DirectoryNamesTest, ACatalogWithoutThemIsReadAndItsFirstWriterBuildsThem) {
  {
    auto catalog = testing::OpenCatalogOrDie(path_);
    PutTree(*catalog);
  }
  // As an older fathom left it.
  Exec(path_, "DROP TRIGGER dirs_name_added; DROP TRIGGER dirs_name_removed; DROP TRIGGER dirs_name_moved;"
              " DROP TRIGGER dirs_type_changed; DROP TABLE dirs");
  {
    auto reader = testing::OpenCatalogOrDie(path_, /*read_only=*/true);
    EXPECT_EQ(SelectedPaths(*reader), (std::vector<std::string>{"/r/a/b/c/big"}));
    EXPECT_TRUE(FATHOM_TEST_VALUE(reader->Recount(false)).ok());
  }
  auto writer = testing::OpenCatalogOrDie(path_);
  EXPECT_EQ(Kept(path_), Real(path_));
  EXPECT_EQ(Kept(path_).size(), 5u);
  EXPECT_EQ(SelectedPaths(*writer), (std::vector<std::string>{"/r/a/b/c/big"}));
}

TEST_F(DirectoryNamesTest, AFirstScanDropsThemAndBuildsThemAtItsEnd) {
  auto catalog = testing::OpenCatalogOrDie(path_);
  const uint64_t generation = FATHOM_TEST_VALUE(catalog->BeginScan("/r", false));
  EXPECT_TRUE(Query(path_, "SELECT 0, 0, name FROM sqlite_master WHERE name = 'dirs' OR type = 'trigger'").empty());
  PutTree(*catalog);
  ASSERT_TRUE(catalog->FinishScan(generation, nullptr).ok());
  EXPECT_EQ(Query(path_, "SELECT 0, 0, name FROM sqlite_master WHERE type = 'trigger'").size(), 4u);
  EXPECT_EQ(Kept(path_), Real(path_));
  EXPECT_EQ(Kept(path_).size(), 5u);
  EXPECT_EQ(SelectedPaths(*catalog), (std::vector<std::string>{"/r/a/b/c/big"}));
}

}  // namespace
}  // namespace fathom::catalog
