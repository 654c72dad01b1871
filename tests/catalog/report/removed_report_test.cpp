// fathom undelete --list's table (catalog/report/removed_report.h): objects removed through
// a Batch, listed newest first with who removed them, bounded by path and time.
#include "catalog/report/removed_report.h"

#include <gtest/gtest.h>

#include <ctime>

#include "catalog/report/catalog_from_tree.h"
#include "catalog/report/sample_tree.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::catalog::report {
namespace {

std::string LocalDate(int64_t ns) {
  time_t t = ns / 1'000'000'000;
  tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y/%m/%d %T", &local);
  return buf;
}

class RemovedList : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeSampleTree(root_, std::time(nullptr));
    auto catalog = testing::CatalogOfTree(dir_ / "catalog.db", root_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().message();
    catalog_ = std::move(catalog.value());
    // After the tree was recorded: a removal older than the catalog's observation is ignored.
    first_ = (static_cast<int64_t>(std::time(nullptr)) + 10) * 1'000'000'000;
    second_ = first_ + 60'000'000'000;
    auto batch = catalog_->Begin();
    ASSERT_TRUE(batch.ok());
    auto docs = batch.value()->Lookup(root_ + "/docs");
    auto data = batch.value()->Lookup(root_ + "/data");
    ASSERT_TRUE(docs.ok() && data.ok());
    Removal by_user{first_, 7, testing::kSampleUserA, "job42"};
    ASSERT_TRUE(batch.value()->Remove(docs.value(), "readme.txt", by_user).ok());
    Removal found_gone{second_, 8, std::nullopt, ""};
    ASSERT_TRUE(batch.value()->Remove(data.value(), "big.bin", found_gone).ok());
    ASSERT_TRUE(batch.value()->Commit().ok());
  }

  std::vector<std::string> Rows(const std::string& path, int64_t since_ns) {
    auto table = report::RemovedList(*catalog_, path, since_ns);
    EXPECT_TRUE(table.ok()) << table.status().message();
    return table.ok() ? testing::Lines(Render(table.value(), TableFormat::kCsv, false))
                      : std::vector<std::string>{};
  }

  testing::TempDir dir_;
  std::string root_ = dir_ / "tree";
  std::unique_ptr<Catalog> catalog_;
  int64_t first_ = 0, second_ = 0;
};

TEST_F(RemovedList, NewestFirstWithWhoRemovedThemWhereKnown) {
  char readme[512], big[512];
  std::snprintf(big, sizeof(big), "%20s, %40s, %8s, %15s, %10s, %10s, %10s",
                LocalDate(second_).c_str(), (root_ + "/data/big.bin").c_str(), "file", "200000",
                "4102", "", "");
  std::snprintf(readme, sizeof(readme), "%20s, %40s, %8s, %15s, %10s, %10s, %10s",
                LocalDate(first_).c_str(), (root_ + "/docs/readme.txt").c_str(), "file", "100",
                "4101", "4101", "job42");
  EXPECT_EQ(Rows("/", 0), (std::vector<std::string>{big, readme}));

  auto table = report::RemovedList(*catalog_, "/", 0);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table.value().footer, "Total: 2 entries, 200100 bytes (195.41 KB)");
  EXPECT_EQ(testing::Lines(Render(table.value(), TableFormat::kText, true)).front(),
            "             rm_time,                                     path,     type,       "
            "size,       user,      rm_by,      jobid");
}

TEST_F(RemovedList, BoundedByPathAndTime) {
  auto paths = [&](const std::string& path, int64_t since) {
    std::vector<std::string> out;
    for (const auto& row : Rows(path, since)) {
      std::string p = row.substr(row.find(", ") + 2);
      p = p.substr(0, p.find(", "));
      out.push_back(p.substr(p.find_first_not_of(' ')));
    }
    return out;
  };
  EXPECT_EQ(paths(root_ + "/docs", 0), (std::vector<std::string>{root_ + "/docs/readme.txt"}));
  EXPECT_EQ(paths(root_ + "/doc", 0), std::vector<std::string>{});
  EXPECT_EQ(paths(root_, second_), (std::vector<std::string>{root_ + "/data/big.bin"}));
  EXPECT_EQ(paths(root_, second_ + 1), std::vector<std::string>{});
}

}  // namespace
}  // namespace fathom::catalog::report
