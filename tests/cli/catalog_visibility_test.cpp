// What an ordinary user sees through `fathom find` and `fathom du`: compared with GNU find and
// GNU du run as that user (setpriv, a real change of credentials) on generated trees whose
// directories have random owners, groups and modes. Needs root (to make the tree and to
// become another user); a directory's names are seen when it and every directory above it
// may be read and searched, as the kernel lets that user list them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

std::vector<std::string> AsNobody(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  return argv;
}

class CatalogVisibility : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "this test changes credentials with setpriv: run it as root";
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
    tree_ = dir_ / "tree";
    testing::MakeDirs(tree_);
    std::mt19937_64 rng(GetParam());
    Fill(tree_, 0, rng);
    catalog_ = dir_ / "cat.db";
    auto scanned = testing::Run({testing::FathomBinary(), "scan", "-q", "--catalog", catalog_, tree_});
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  }

  // Directories with modes where each class has both r and x, or x alone, or neither (a
  // directory readable but not searchable is left to its own test), owned by root or nobody.
  void Fill(const std::string& dir, int depth, std::mt19937_64& rng) {
    static constexpr mode_t kModes[] = {0755, 0750, 0700, 0711, 0705, 0770, 0751, 0500, 0555, 0701};
    const int entries = depth == 0 ? 8 : 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < entries; ++i) {
      const std::string path = dir + "/e" + std::to_string(i);
      if (depth < 3 && rng() % 3 != 0) {
        testing::MakeDirs(path);
        Fill(path, depth + 1, rng);
        ASSERT_EQ(::chown(path.c_str(), rng() % 2 ? kNobody : 0, rng() % 2 ? kNogroup : 0), 0);
        ASSERT_EQ(::chmod(path.c_str(), kModes[rng() % std::size(kModes)]), 0);
      } else {
        testing::WriteFile(path, std::string(rng() % 9000, 'x'));
        ASSERT_EQ(::chown(path.c_str(), rng() % 2 ? kNobody : 0, 0), 0);
      }
    }
  }

  testing::RunResult Fathom(std::vector<std::string> args) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args));
  }

  testing::TempDir dir_;
  std::string tree_, catalog_;
};

TEST_P(CatalogVisibility, FindAsAUserListsWhatGnuFindListsAsThatUser) {
  auto ours = Fathom({"find", "--catalog", catalog_, "--as-user", "nobody", tree_});
  auto gnu = testing::Run(AsNobody({"/usr/bin/find", tree_}));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(testing::SortedLines(ours.out), testing::SortedLines(gnu.out));
  // Root sees everything; a selective query goes through the index, and is filtered too.
  auto all = Fathom({"find", "--catalog", catalog_, tree_});
  EXPECT_EQ(testing::SortedLines(all.out), testing::SortedLines(testing::Run({"/usr/bin/find", tree_}).out));
  EXPECT_LT(testing::Lines(ours.out).size(), testing::Lines(all.out).size());  // some are hidden
  auto big = Fathom({"find", "--catalog", catalog_, "--as-user", "nobody", tree_, "-size", "+4k", "-user", "nobody"});
  auto gnu_big = testing::Run(AsNobody({"/usr/bin/find", tree_, "-size", "+4k", "-user", "nobody"}));
  EXPECT_EQ(testing::SortedLines(big.out), testing::SortedLines(gnu_big.out));
}

TEST_P(CatalogVisibility, DuAsAUserCountsWhatGnuDuCountsAsThatUser) {
  for (const std::vector<std::string>& options : {std::vector<std::string>{}, {"-s"}, {"-a", "-b"}}) {
    std::vector<std::string> ours = {"du", "--catalog", catalog_, "--as-user", "nobody"};
    std::vector<std::string> gnu = {"/usr/bin/du"};
    ours.insert(ours.end(), options.begin(), options.end());
    gnu.insert(gnu.end(), options.begin(), options.end());
    ours.push_back(tree_);
    gnu.push_back(tree_);
    auto a = Fathom(ours);
    auto b = testing::Run(AsNobody(gnu));
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(testing::SortedLines(a.out), testing::SortedLines(b.out)) << ::testing::PrintToString(options);
  }
}

// Run as nobody itself, fathom answers as nobody, and refuses to answer as anyone else.
TEST_P(CatalogVisibility, AnOrdinaryUserSeesItsOwnViewAndCannotAskForAnother) {
  ASSERT_EQ(::chmod(catalog_.c_str(), 0644), 0);
  auto own = testing::Run(AsNobody({testing::FathomBinary(), "find", "--catalog", catalog_, tree_}));
  auto gnu = testing::Run(AsNobody({"/usr/bin/find", tree_}));
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(testing::SortedLines(own.out), testing::SortedLines(gnu.out));
  auto other = testing::Run(AsNobody({testing::FathomBinary(), "find", "--catalog", catalog_, "--as-user", "root", tree_}));
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err,
            "fathom find: --as-user needs root: a user other than root always sees what its own "
            "permissions let it list (drop --as-user)\n");
}

INSTANTIATE_TEST_SUITE_P(Trees, CatalogVisibility, ::testing::Values(11, 12, 13, 14));

}  // namespace
}  // namespace fathom
