// fathom du's listing (catalog/report/du.h) against GNU du (/usr/bin/du) on the same real
// tree, the catalog filled from that tree: the same lines for every option combination.
#include "catalog/report/du.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iterator>

#include "catalog/report/catalog_from_tree.h"
#include "catalog/report/owners.h"
#include "catalog/report/sample_tree.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::catalog::report {
namespace {

using testing::kSampleGroupA;
using testing::kSampleUserB;

// Splits on `end` (every record ends with it); the name of either of the two hard links in
// data/ is written as "hard-?": which of them is met first is readdir's order for GNU du,
// name order for the catalog, and only the first is listed.
std::vector<std::string> Records(const std::string& text, char end = '\n') {
  std::vector<std::string> records;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != end) continue;
    std::string record = text.substr(start, i - start);
    for (const char* name : {"/hard-a", "/hard-b"}) {
      size_t at = record.size() >= 7 ? record.size() - 7 : 0;
      if (record.compare(at, std::string::npos, name) == 0) record.replace(at, 7, "/hard-?");
    }
    records.push_back(record);
    start = i + 1;
  }
  std::sort(records.begin(), records.end());
  return records;
}

class DuAgainstGnu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    root_ = *dir_ / "tree";
    testing::MakeSampleTree(root_, std::time(nullptr));
    auto catalog = testing::CatalogOfTree(*dir_ / "catalog.db", root_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().message();
    catalog_ = catalog.value().release();
  }
  static void TearDownTestSuite() {
    delete catalog_;
    delete dir_;
  }

  // fathom's output for `options` and `paths`.
  static std::string Ours(const DuOptions& options, const std::vector<std::string>& paths,
                          std::vector<std::string>* missing = nullptr) {
    return OursOn(*catalog_, options, paths, missing);
  }

  static std::string OursOn(Catalog& catalog, const DuOptions& options,
                            const std::vector<std::string>& paths,
                            std::vector<std::string>* missing = nullptr) {
    std::string out;
    DuSink sink;
    sink.line = [&](std::string_view line) { out.append(line); };
    sink.missing = [&](const std::string& arg) {
      if (missing) missing->push_back(arg);
    };
    Status listed = Du(catalog, paths, options, sink);
    EXPECT_TRUE(listed.ok()) << listed.message();
    return out;
  }

  // GNU du's output, written to a file (it may hold NULs and lack a last newline).
  static std::string Gnu(std::vector<std::string> args, const std::vector<std::string>& paths) {
    std::string out = *dir_ / "du.out";
    args.insert(args.begin(), {"/bin/sh", "-c", "exec /usr/bin/du \"$@\" > \"$0\"", out});
    args.insert(args.end(), paths.begin(), paths.end());
    auto r = testing::Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // The options GNU du's command line `args` sets, as fathom du's command line sets them.
  static DuOptions Options(const std::vector<std::string>& args) {
    DuOptions o;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-s") o.max_depth = 0;
      if (a == "-a") o.all = true;
      if (a == "-h") o.format = HumanReadable();
      if (a == "-b") {
        o.apparent_size = true;
        o.format = BlockSize(1);
      }
      if (a == "--apparent-size") o.apparent_size = true;
      if (a == "-k") o.format = BlockSize(1024);
      if (a == "-m") o.format = BlockSize(1024 * 1024);
      if (a == "--inodes") o.inodes = true;
      if (a == "-c") o.total = true;
      if (a == "-l") o.count_links = true;
      if (a == "-0") o.line_end = '\0';
      if (a == "-d") o.max_depth = std::stoi(args.at(++i));
      if (a == "-B") {
        auto f = ParseBlockSize(args.at(++i));
        EXPECT_TRUE(f.ok()) << args[i];
        if (f.ok()) o.format = f.value();
      }
    }
    return o;
  }

  static void ExpectSameAsGnu(const std::vector<std::string>& args,
                              const std::vector<std::string>& paths) {
    char end = std::find(args.begin(), args.end(), "-0") != args.end() ? '\0' : '\n';
    std::string label;
    for (const auto& a : args) label += a + " ";
    std::vector<std::string> gnu = Records(Gnu(args, paths), end);
    ASSERT_FALSE(gnu.empty()) << label;
    EXPECT_EQ(Records(Ours(Options(args), paths), end), gnu) << "du " << label;
  }

  static testing::TempDir* dir_;
  static std::string root_;
  static Catalog* catalog_;
};

testing::TempDir* DuAgainstGnu::dir_ = nullptr;
std::string DuAgainstGnu::root_;
Catalog* DuAgainstGnu::catalog_ = nullptr;

TEST_F(DuAgainstGnu, DirectoriesInBlocksOfOneKilobyte) { ExpectSameAsGnu({}, {root_}); }

TEST_F(DuAgainstGnu, EveryEntryWithAll) { ExpectSameAsGnu({"-a"}, {root_}); }

TEST_F(DuAgainstGnu, SummaryFromKeptTotals) {
  ExpectSameAsGnu({"-s"}, {root_});
  ExpectSameAsGnu({"-s"}, {root_ + "/data", root_ + "/docs", root_ + "/empty"});
  ExpectSameAsGnu({"-d", "0", "-b"}, {root_});
  ExpectSameAsGnu({"-s", "--inodes"}, {root_});
  ExpectSameAsGnu({"-s", "-l", "--apparent-size"}, {root_ + "/data"});
  ExpectSameAsGnu({"-s", "-h", "-c"}, {root_ + "/deep", root_ + "/sizes", root_ + "/links"});
}

TEST_F(DuAgainstGnu, HumanReadableSizes) {
  ExpectSameAsGnu({"-h"}, {root_});
  ExpectSameAsGnu({"-a", "-h", "--apparent-size"}, {root_});
  ExpectSameAsGnu({"-a", "-h"}, {root_});
}

TEST_F(DuAgainstGnu, ApparentSizesInBytes) {
  ExpectSameAsGnu({"-a", "-b"}, {root_});
  ExpectSameAsGnu({"-a", "--apparent-size"}, {root_});
}

TEST_F(DuAgainstGnu, BlockSizesRoundUp) {
  for (const char* size : {"1", "1K", "1M", "4K", "1KB", "K", "KB", "MiB"}) {
    ExpectSameAsGnu({"-a", "-B", size}, {root_});
    ExpectSameAsGnu({"-a", "--apparent-size", "-B", size}, {root_});
  }
  ExpectSameAsGnu({"-a", "-k"}, {root_});
  ExpectSameAsGnu({"-a", "-m", "--apparent-size"}, {root_});
  ExpectSameAsGnu({"-m"}, {root_});
}

TEST_F(DuAgainstGnu, InodeCounts) {
  ExpectSameAsGnu({"--inodes"}, {root_});
  ExpectSameAsGnu({"--inodes", "-a"}, {root_});
  ExpectSameAsGnu({"--inodes", "-a", "-l"}, {root_});
}

TEST_F(DuAgainstGnu, MaxDepth) {
  ExpectSameAsGnu({"-d", "1"}, {root_});
  ExpectSameAsGnu({"-d", "2", "-a", "-h"}, {root_});
  ExpectSameAsGnu({"-d", "1", "-a", "-b"}, {root_ + "/"});
}

TEST_F(DuAgainstGnu, TotalLine) {
  ExpectSameAsGnu({"-c"}, {root_ + "/docs", root_ + "/data"});
  ExpectSameAsGnu({"-c", "-a", "-h"}, {root_ + "/deep", root_ + "/docs/readme.txt"});
}

TEST_F(DuAgainstGnu, HardLinksCountedOnceOrWithCountLinksAtEachName) {
  ExpectSameAsGnu({"-a", "-l"}, {root_ + "/data"});
  ExpectSameAsGnu({"-l", "-b"}, {root_});
  ExpectSameAsGnu({"-b"}, {root_ + "/data"});
}

TEST_F(DuAgainstGnu, SeveralPathsFilesAndSymlinks) {
  ExpectSameAsGnu({"-a"}, {root_ + "/links", root_ + "/links/to-readme",
                           root_ + "/\xff\xfe latin", root_ + "/line\nbreak"});
  ExpectSameAsGnu({"-s", "-b"}, {root_ + "/docs/report final.pdf", root_ + "/links/dangling"});
}

TEST_F(DuAgainstGnu, NulTerminatedRecords) { ExpectSameAsGnu({"-a", "-0"}, {root_}); }

TEST_F(DuAgainstGnu, OverlappingArgumentsCountedOnce) {
  ExpectSameAsGnu({}, {root_ + "/deep/a", root_ + "/deep"});
  ExpectSameAsGnu({"-a", "-c"}, {root_ + "/deep", root_ + "/deep/a", root_ + "/deep"});
  ExpectSameAsGnu({"-s", "-c"}, {root_ + "/deep/a/b", root_ + "/docs/main.c", root_});
  ExpectSameAsGnu({"-s"}, {root_, root_ + "/docs"});
  ExpectSameAsGnu({"-s", "-l", "--inodes"}, {root_ + "/docs", root_});
  ExpectSameAsGnu({"-d", "1", "-b"}, {root_ + "/deep/a", root_ + "/docs/util.c", root_ + "/deep"});
}

// One file with names in three directories: with several arguments GNU counts it under the
// first that holds it, whether the others are summarized from kept totals or walked.
TEST_F(DuAgainstGnu, AHardLinkAcrossArgumentsIsCountedUnderTheFirst) {
  const std::string tree = *dir_ / "linked";
  testing::MakeDirs(tree + "/a");
  testing::MakeDirs(tree + "/b/sub");
  testing::MakeDirs(tree + "/c");
  testing::WriteFile(tree + "/a/f", std::string(9000, 'x'));
  testing::WriteFile(tree + "/b/h", std::string(100, 'y'));
  ASSERT_EQ(link((tree + "/a/f").c_str(), (tree + "/b/sub/g").c_str()), 0);
  ASSERT_EQ(link((tree + "/a/f").c_str(), (tree + "/c/k").c_str()), 0);
  auto catalog = testing::CatalogOfTree(*dir_ / "linked.db", tree);
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  const std::string a = tree + "/a", b = tree + "/b", c = tree + "/c", sub = tree + "/b/sub";
  // Summarized: any arguments. Walked: arguments that each hold one name (within one
  // argument GNU meets the names in readdir order, the catalog in name order).
  const std::vector<std::vector<std::string>> summarized = {{"-s"}, {"-s", "-c", "-b"}, {"-s", "--inodes"}};
  const std::vector<std::vector<std::string>> walked = {{}, {"-a", "-c"}};
  const std::vector<std::vector<std::string>> any = {{a, b, c}, {c, b, a}, {b, tree}, {tree, b}, {sub, b, c}, {a, a}};
  const std::vector<std::vector<std::string>> one_each = {{a, b, c}, {c, b, a}, {sub, c, a}};
  for (const auto& [options, sets] : {std::pair{summarized, any}, std::pair{walked, one_each}}) {
    for (const std::vector<std::string>& args : options) {
      for (const std::vector<std::string>& paths : sets) {
        EXPECT_EQ(OursOn(*catalog.value(), Options(args), paths), Gnu(args, paths))
            << ::testing::PrintToString(args) << " " << ::testing::PrintToString(paths);
      }
    }
  }
}

TEST_F(DuAgainstGnu, RelativePathsStartAtTheWorkingDirectory) {
  DuOptions options = Options({"-s", "-b"});
  options.cwd = root_ + "/docs";
  std::string gnu = Gnu({"-s", "-b"}, {root_ + "/data"});
  std::string ours = Ours(options, {"../data"});
  EXPECT_EQ(ours.substr(0, ours.find('\t')), gnu.substr(0, gnu.find('\t')));
  EXPECT_EQ(ours.substr(ours.find('\t')), "\t../data\n");
}

TEST_F(DuAgainstGnu, PathTheCatalogDoesNotHoldIsReportedAndTheOthersListed) {
  std::vector<std::string> missing;
  std::string out = Ours(Options({"-s", "-b"}), {root_ + "/nothing", root_ + "/docs"}, &missing);
  EXPECT_EQ(missing, (std::vector<std::string>{root_ + "/nothing"}));
  EXPECT_EQ(out, Gnu({"-s", "-b"}, {root_ + "/docs"}));
}

// rbh-du's bounds: only entries of the owner / group / type count; directories still listed.
TEST_F(DuAgainstGnu, OwnerAndTypeBoundsCountOnlyMatchingEntries) {
  DuOptions by_user = Options({"-s", "-b"});
  by_user.filter.uid = kSampleUserB;
  // data/ and its files belong to user B: 200000 + 10 MiB + 1048577 + 4096 + 1 + 0 + 1025 +
  // 3000 (two names, one file) + 40000, plus data/'s own st_size.
  struct stat st {};
  ASSERT_EQ(lstat((root_ + "/data").c_str(), &st), 0);
  int64_t expected = 200000 + 10 * 1048576 + 1048577 + 4096 + 1 + 0 + 1025 + 3000 + 40000 +
                     st.st_size;
  EXPECT_EQ(Ours(by_user, {root_}), std::to_string(expected) + "\t" + root_ + "\n");

  DuOptions files_of_group = Options({"-s", "--inodes"});
  files_of_group.filter.gid = kSampleGroupA;
  files_of_group.filter.type = S_IFREG;
  EXPECT_EQ(Ours(files_of_group, {root_}), "5\t" + root_ + "\n");

  DuOptions symlinks = Options({"--inodes", "-a"});
  symlinks.filter.type = S_IFLNK;
  EXPECT_EQ(Ours(symlinks, {root_ + "/links"}),
            "1\t" + root_ + "/links/dangling\n1\t" + root_ + "/links/to-readme\n2\t" + root_ +
                "/links\n");
}

TEST(SizeFormat, RoundsUpLikeGnu) {
  EXPECT_EQ(FormatAmount(0, BlockSize(1024)), "0");
  EXPECT_EQ(FormatAmount(1, BlockSize(1024)), "1");
  EXPECT_EQ(FormatAmount(1025, BlockSize(1024)), "2");
  EXPECT_EQ(FormatAmount(1023, HumanReadable()), "1023");
  EXPECT_EQ(FormatAmount(1024, HumanReadable()), "1.0K");
  EXPECT_EQ(FormatAmount(1025, HumanReadable()), "1.1K");
  EXPECT_EQ(FormatAmount(10239, HumanReadable()), "10K");
  EXPECT_EQ(FormatAmount(12 * 1024, HumanReadable()), "12K");
  EXPECT_EQ(FormatAmount(1048575, HumanReadable()), "1.0M");
  EXPECT_EQ(FormatAmount(1153433, HumanReadable()), "1.1M");
  EXPECT_EQ(FormatAmount(1153434, HumanReadable()), "1.2M");
  EXPECT_EQ(FormatAmount(1024, ParseBlockSize("K").value()), "1K");
  EXPECT_EQ(FormatAmount(1000, ParseBlockSize("KB").value()), "1kB");
  EXPECT_EQ(FormatAmount(2048, ParseBlockSize("KiB").value()), "2KiB");
  EXPECT_EQ(FormatAmount(1001, ParseBlockSize("1KB").value()), "2");
}

TEST(SizeFormat, RefusesWhatIsNotABlockSize) {
  for (const char* bad : {"", "0", "x", "1x", "K2", "1KX", "99999999999999999999"}) {
    auto f = ParseBlockSize(bad);
    EXPECT_FALSE(f.ok()) << bad;
    if (!f.ok()) {
      EXPECT_NE(f.status().message().find("invalid block size"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace fathom::catalog::report
