// `fathom scan` then `fathom find` through the binary: the same names as GNU find prints on
// the same tree (sorted: GNU prints in readdir order), GNU's exit status and a precise error
// for a bad expression, and the catalog named by --catalog or FATHOM_CATALOG.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

class FindCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = dir_ / "tree";
    testing::MakeDirs(tree_ + "/src/deep/er");
    testing::MakeDirs(tree_ + "/empty dir");
    testing::WriteFile(tree_ + "/src/a.txt", "hello");
    testing::WriteFile(tree_ + "/src/deep/b.txt", std::string(5000, 'x'));
    testing::WriteFile(tree_ + "/src/deep/er/c.h5", "");
    testing::WriteFile(tree_ + "/name with space.txt", "1");
    catalog_ = dir_ / "cat.db";
    auto scanned = testing::Run({testing::FathomBinary(), "scan", "-q", "--catalog", catalog_, tree_});
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  }

  void ExpectSameAsGnu(std::vector<std::string> expression) {
    std::vector<std::string> ours = {testing::FathomBinary(), "find", "--catalog", catalog_, tree_};
    std::vector<std::string> gnu = {"/usr/bin/find", tree_};
    ours.insert(ours.end(), expression.begin(), expression.end());
    gnu.insert(gnu.end(), expression.begin(), expression.end());
    auto a = testing::Run(ours);
    auto b = testing::Run(gnu);
    EXPECT_EQ(a.exit_code, b.exit_code) << a.err;
    EXPECT_EQ(testing::SortedLines(a.out), testing::SortedLines(b.out)) << "expression: " << ::testing::PrintToString(expression);
  }

  testing::TempDir dir_;
  std::string tree_, catalog_;
};

TEST_F(FindCommand, PrintsWhatGnuFindPrintsOnTheSameTree) {
  ExpectSameAsGnu({});
  ExpectSameAsGnu({"-name", "*.txt"});
  ExpectSameAsGnu({"-type", "d", "-empty"});
  ExpectSameAsGnu({"-size", "+1k", "-o", "-size", "0"});
  ExpectSameAsGnu({"-mindepth", "2", "-maxdepth", "3", "-printf", "%d %s %P\n"});
  ExpectSameAsGnu({"!", "-path", "*/deep/*", "-type", "f"});
}

TEST_F(FindCommand, ABadExpressionIsAUsageErrorNamingTheCause) {
  auto r = testing::Run({testing::FathomBinary(), "find", "--catalog", catalog_, tree_, "-size", "12Q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("fathom find: -size: \"12Q\" is not a size"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(FindCommand, APathTheCatalogDoesNotHoldIsReportedAndTheRestAnswered) {
  auto r = testing::Run({testing::FathomBinary(), "find", "--catalog", catalog_, dir_ / "nowhere",
                         tree_ + "/src/deep/er"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not in the catalog"), std::string::npos) << r.err;
  EXPECT_EQ(testing::SortedLines(r.out), (std::vector<std::string>{tree_ + "/src/deep/er", tree_ + "/src/deep/er/c.h5"}));
}

TEST_F(FindCommand, TheCatalogComesFromTheEnvironmentWhenNotGiven) {
  ::setenv("FATHOM_CATALOG", catalog_.c_str(), 1);
  auto r = testing::Run({testing::FathomBinary(), "-v", "find", tree_, "-name", "c.h5"});
  ::unsetenv("FATHOM_CATALOG");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tree_ + "/src/deep/er/c.h5\n");
}

}  // namespace
}  // namespace fathom
