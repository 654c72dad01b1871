// What answers a query: a summary (`du -s`) and the user/group/fs reports read the catalog's
// kept statistics, not the entries. Shown by altering the kept statistics behind the catalog's
// back (the SQLite file's `tree` and `acct` tables): those answers move, walks do not.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "catalog/report/catalog_from_tree.h"
#include "catalog/report/du.h"
#include "catalog/report/reports.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::catalog::report {
namespace {

class KeptTotals : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeDirs(root_ + "/d");
    testing::WriteFile(root_ + "/d/f1", "one");
    testing::WriteFile(root_ + "/d/f2", "two");
    auto catalog = testing::CatalogOfTree(db_, root_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().message();
    auto d = catalog.value()->Stat(root_ + "/d");
    ASSERT_TRUE(d.ok() && d.value().has_value());
    catalog.value().reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    std::string alter = "UPDATE tree SET files = files + 5 WHERE id = " +
                        std::to_string(d.value()->id) +
                        "; UPDATE acct SET count = count + 7 WHERE type = " +
                        std::to_string(S_IFREG);
    EXPECT_EQ(sqlite3_exec(db, alter.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    CatalogOptions options;
    options.uri = db_;
    options.read_only = true;
    auto reopened = Catalog::Open(options);
    ASSERT_TRUE(reopened.ok()) << reopened.status().message();
    catalog_ = std::move(reopened.value());
  }

  std::string Du(const std::vector<std::string>& paths, std::optional<int> max_depth) {
    DuOptions options;
    options.inodes = true;
    options.max_depth = max_depth;
    std::string out;
    DuSink sink{[&](std::string_view line) { out.append(line); }, [](const std::string&) {}};
    EXPECT_TRUE(report::Du(*catalog_, paths, options, sink).ok());
    return out;
  }

  testing::TempDir dir_;
  std::string root_ = dir_ / "tree";
  std::string db_ = dir_ / "catalog.db";
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(KeptTotals, SummaryOfADirectoryReadsTheKeptTotalsAndAListingWalks) {
  EXPECT_EQ(Du({root_ + "/d"}, 0), "8\t" + root_ + "/d\n");        // d, f1, f2 and the 5 added
  EXPECT_EQ(Du({root_ + "/d"}, std::nullopt), "3\t" + root_ + "/d\n");
}

TEST_F(KeptTotals, FsInfoReadsTheKeptAccountingAndAFilteredOneSumsEntries) {
  ReportOptions options;
  auto kept = FsInfo(*catalog_, options);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept.value().rows.size(), 2u);
  EXPECT_EQ(kept.value().rows[1][0].raw + " " + kept.value().rows[1][1].raw, "file 9");
  options.filter_path = root_;
  auto summed = FsInfo(*catalog_, options);
  ASSERT_TRUE(summed.ok());
  ASSERT_EQ(summed.value().rows.size(), 2u);
  EXPECT_EQ(summed.value().rows[1][0].raw + " " + summed.value().rows[1][1].raw, "file 2");
}

}  // namespace
}  // namespace fathom::catalog::report
