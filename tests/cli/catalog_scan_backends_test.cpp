// `fathom scan` of one generated tree into a PostgreSQL catalog (new objects sent in bulk by
// COPY, what the catalog holds of a directory's objects read ahead in one go) and into a
// SQLite one: `fathom find` lists the same names with the same attributes, `fathom du`
// reports the same usage, and both catalogs' statistics recount clean — after a first scan,
// and after the tree changed and was scanned again (updates, removals, a renamed directory,
// a name replaced by another object).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "support/fs_ops.h"
#include "support/postgres_server.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

class CatalogScanPg : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    sqlite_ = dir_ / "catalog.db";
    // A directory wider than the scanner's chunks (1,024 names), nested directories, sizes
    // of every bucket up to 1 MB, hard links within and across directories, symbolic links,
    // an empty directory and names of any bytes.
    testing::MakeDirs(tree_ + "/wide");
    for (int i = 0; i < 1500; ++i) testing::WriteFile(tree_ + "/wide/f" + std::to_string(i), std::string(i % 7, 'w'));
    for (int d = 0; d < 30; ++d) {
      const std::string dir = tree_ + "/n" + std::to_string(d % 5) + "/m" + std::to_string(d);
      testing::MakeDirs(dir + "/deeper/still");
      for (int i = 0; i < 20; ++i) {
        testing::WriteFile(dir + "/g" + std::to_string(i), std::string(static_cast<size_t>((d * 37 + i * 101) % 3000), 'x'));
      }
      testing::WriteFile(dir + "/deeper/still/big", std::string(static_cast<size_t>(40000 + d * 1000), 'b'));
      ASSERT_EQ(link((dir + "/g0").c_str(), (dir + "/deeper/g0-link").c_str()), 0);
      ASSERT_EQ(symlink("../g1", (dir + "/deeper/to-g1").c_str()), 0);
    }
    ASSERT_EQ(link((tree_ + "/wide/f3").c_str(), (tree_ + "/n0/f3-elsewhere").c_str()), 0);
    testing::MakeDirs(tree_ + "/empty");
    testing::WriteFile(tree_ + "/odd \t\xff name", "odd");  // no newline: one line per name
    testing::WriteFile(tree_ + "/n1/large", std::string(1 << 20, 'l'));
  }

  testing::RunResult Fathom(std::vector<std::string> args) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), std::chrono::seconds(120));
  }

  void ScanBoth() {
    for (const std::string& catalog : {server_.uri(), sqlite_}) {
      auto scanned = Fathom({"scan", "-q", "--catalog", catalog, tree_});
      ASSERT_EQ(scanned.exit_code, 0) << catalog << ": " << scanned.err;
    }
  }

  // The answers of one catalog: find with every attribute the catalog keeps but atime, du of
  // every directory (GNU's rules for hard links), du of files too in bytes and in inodes.
  std::vector<std::vector<std::string>> Answers(const std::string& catalog) {
    std::vector<std::vector<std::string>> out;
    for (std::vector<std::string> args :
         {std::vector<std::string>{"find", "--catalog", catalog, tree_, "-printf",
                                   "%y %D %i %m %U %G %n %s %b %T@ %C@ %P -> %l\n"},
          {"find", "--catalog", catalog, tree_, "-size", "+1k", "-newer", tree_ + "/n0"},
          {"du", "--catalog", catalog, tree_},
          {"du", "-a", "-b", "--catalog", catalog, tree_},
          {"du", "--inodes", "-s", "--catalog", catalog, tree_ + "/n0", tree_ + "/wide"}}) {
      auto r = Fathom(args);
      EXPECT_EQ(r.exit_code, 0) << catalog << ": " << r.err;
      out.push_back(testing::SortedLines(r.out));
    }
    auto check = Fathom({"catalog", "check", "--recount", "--catalog", catalog});
    EXPECT_EQ(check.exit_code, 0) << catalog << ": " << check.out << check.err;
    return out;
  }

  void ExpectSameAnswers(size_t names) {
    const auto pg = Answers(server_.uri());
    const auto sqlite = Answers(sqlite_);
    ASSERT_EQ(pg.size(), sqlite.size());
    for (size_t i = 0; i < pg.size(); ++i) EXPECT_EQ(pg[i], sqlite[i]) << "query " << i;
    EXPECT_EQ(pg[0].size(), names);  // the tree's names, its root included
    auto verify = Fathom({"catalog", "verify", "--catalog", server_.uri(), tree_});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_EQ(verify.out, "");
  }

  testing::TempDir dir_;
  testing::PostgresServer server_;
  std::string tree_, sqlite_;
};

TEST_F(CatalogScanPg, AScanIntoPostgresqlAnswersFindAndDuLikeOneIntoSqlite) {
  ScanBoth();
  // root, wide + 1,500, n0..n4, 30 × (m, deeper, still, 20 g, big, link, symlink), the hard
  // link, empty, the odd name, large.
  ExpectSameAnswers(1 + 1501 + 5 + 30 * 26 + 1 + 1 + 1 + 1);

  // Changed, then scanned again into the same catalogs.
  for (int i = 0; i < 1500; i += 3) ASSERT_EQ(unlink((tree_ + "/wide/f" + std::to_string(i)).c_str()), 0);
  for (int i = 1; i < 1500; i += 3) testing::WriteFile(tree_ + "/wide/f" + std::to_string(i), "longer than before");
  ASSERT_EQ(rename((tree_ + "/n1/m1").c_str(), (tree_ + "/n2/m1-moved").c_str()), 0);
  ASSERT_EQ(unlink((tree_ + "/n2/m2/g5").c_str()), 0);
  testing::MakeDirs(tree_ + "/n2/m2/g5");  // a name now holding a directory
  testing::WriteFile(tree_ + "/n2/m2/g5/inside", "new");
  ASSERT_EQ(std::remove((tree_ + "/empty").c_str()), 0);
  ScanBoth();
  ExpectSameAnswers(1 + 1001 + 5 + 30 * 26 + 1 + 1 + 1 + 1 - 1 + 1);
}

}  // namespace
}  // namespace fathom
