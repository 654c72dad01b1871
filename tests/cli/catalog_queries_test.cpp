// `fathom du`, `fathom report` and `fathom undelete` through the real binary on a catalog
// filled from a real tree: GNU du's lines for the same tree, rbh-report's options, usage
// errors and the catalog named by --catalog or FATHOM_CATALOG.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "catalog/report/catalog_from_tree.h"
#include "catalog/report/sample_tree.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::Lines;
using testing::RunResult;

class CatalogQueries : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    root_ = *dir_ / "tree";
    db_ = *dir_ / "catalog.db";
    testing::MakeSampleTree(root_, std::time(nullptr));
    auto catalog = testing::CatalogOfTree(db_, root_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().message();
    removed_at_ = (static_cast<int64_t>(std::time(nullptr)) + 5) * 1'000'000'000;
    auto batch = catalog.value()->Begin();
    ASSERT_TRUE(batch.ok());
    auto docs = batch.value()->Lookup(root_ + "/docs");
    ASSERT_TRUE(docs.ok());
    ASSERT_TRUE(batch.value()
                    ->Remove(docs.value(), "notes.md",
                             catalog::Removal{removed_at_, 3, testing::kSampleUserA, "build.17"})
                    .ok());
    ASSERT_TRUE(batch.value()->Commit().ok());
  }
  static void TearDownTestSuite() { delete dir_; }

  static RunResult Fathom(const std::string& command, std::vector<std::string> args) {
    args.insert(args.begin(), {testing::FathomBinary(), command, "--catalog", db_});
    return testing::Run(args, 60s);
  }

  static void ExpectDuSameAsGnu(const std::vector<std::string>& args) {
    std::vector<std::string> gnu_args = args;
    gnu_args.insert(gnu_args.begin(), "/usr/bin/du");
    auto gnu = testing::Run(gnu_args, 60s);
    ASSERT_EQ(gnu.exit_code, 0) << gnu.err;
    auto ours = Fathom("du", args);
    EXPECT_EQ(ours.exit_code, 0) << ours.err;
    std::string label;
    for (const auto& a : args) label += a + " ";
    EXPECT_EQ(testing::SortedLines(ours.out), testing::SortedLines(gnu.out)) << label;
  }

  static testing::TempDir* dir_;
  static std::string root_;
  static std::string db_;
  static int64_t removed_at_;
};

testing::TempDir* CatalogQueries::dir_ = nullptr;
std::string CatalogQueries::root_;
std::string CatalogQueries::db_;
int64_t CatalogQueries::removed_at_ = 0;

// notes.md was removed from the catalog only: GNU du still sees it. The others match.
TEST_F(CatalogQueries, DuPrintsGnuDuLines) {
  ExpectDuSameAsGnu({"-h", root_ + "/data", root_ + "/deep"});
  ExpectDuSameAsGnu({"-sc", "-b", root_ + "/data", root_ + "/sizes"});
  ExpectDuSameAsGnu({"-a", "-d", "1", "-B", "4K", root_ + "/data"});
  ExpectDuSameAsGnu({"--inodes", "-s", root_ + "/deep", root_ + "/links"});
  ExpectDuSameAsGnu({"--apparent-size", "-a", "-m", root_ + "/sizes"});
}

TEST_F(CatalogQueries, DuUnitOptionsTakeEffectInTheOrderGiven) {
  ExpectDuSameAsGnu({"-h", "-k", "-a", root_ + "/sizes"});
  ExpectDuSameAsGnu({"-k", "-h", "-a", "--apparent-size", root_ + "/sizes"});
  ExpectDuSameAsGnu({"-B", "1M", "-b", "-a", root_ + "/data"});
  ExpectDuSameAsGnu({"-b", "-B", "1K", "-a", root_ + "/data"});
}

TEST_F(CatalogQueries, DuOfAPathTheCatalogLacksFailsNamingTheCatalog) {
  auto r = Fathom("du", {"-s", "-b", root_ + "/missing", root_ + "/deep/a/b/c"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "fathom du: cannot access '" + root_ + "/missing': not in the catalog " + db_ + "\n");
  auto gnu = testing::Run({"/usr/bin/du", "-s", "-b", root_ + "/deep/a/b/c"});
  EXPECT_EQ(r.out, gnu.out);
}

TEST_F(CatalogQueries, DuReadsTheCatalogNamedByTheEnvironment) {
  auto r = testing::Run({"/usr/bin/env", "FATHOM_CATALOG=" + db_, testing::FathomBinary(), "du",
                         "-s", "--inodes", root_ + "/deep"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "6\t" + root_ + "/deep\n");
}

TEST_F(CatalogQueries, DuRefusesContradictoryOptionsAndAMissingCatalog) {
  auto both = Fathom("du", {"-s", "-a", root_});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, "fathom du: cannot both summarize (-s) and show all entries (-a)\n");
  auto depth = Fathom("du", {"-s", "-d", "2", root_});
  EXPECT_EQ(depth.exit_code, 2);
  auto block = Fathom("du", {"-B", "4X", root_});
  EXPECT_EQ(block.exit_code, 2);
  EXPECT_NE(block.err.find("invalid block size '4X'"), std::string::npos) << block.err;
  auto missing = testing::Run({testing::FathomBinary(), "du", "--catalog", *dir_ / "none.db", "-s", root_});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open the catalog " + *dir_ / "none.db"), std::string::npos)
      << missing.err;
}

TEST_F(CatalogQueries, ReportTopUsersWithOptionalCount) {
  auto all = Fathom("report", {"--top-users", "--csv", "--no-header"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(Lines(all.out).size(), 3u) << all.out;
  EXPECT_EQ(Lines(all.out)[0].substr(0, 18), "   1,       root, ");
  auto two = Fathom("report", {"--top-users=2", "--csv", "-q"});
  EXPECT_EQ(Lines(two.out).size(), 2u) << two.out;
  auto header = Fathom("report", {"-U", "1"});
  EXPECT_EQ(Lines(header.out).at(0),
            "rank,       user,     volume,   spc_used,      count,   avg_size");
}

TEST_F(CatalogQueries, ReportUserInfoOfOneUserAndTheGroupReport) {
  auto r = Fathom("report", {"--user-info=4101", "--csv", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  // notes.md (1023 bytes) is gone from the catalog: four files left.
  EXPECT_EQ(lines[1].substr(0, 50), "      4101,     file,          4,            7400,");
  auto groups = Fathom("report", {"--group-info", "--csv", "-q"});
  EXPECT_NE(groups.out.find("      4202,     file,          9,        11782459, "), std::string::npos)
      << groups.out;
}

TEST_F(CatalogQueries, ReportSeveralReportsAsJsonLines) {
  auto r = Fathom("report", {"--fs-info", "--top-dirs=2", "--big-dirs", "10", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(nlohmann::json::parse(lines[0])["report"], "fs-info");
  auto top = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(top["report"], "top-dirs");
  EXPECT_EQ(top["rows"][0]["path"], root_);
  EXPECT_EQ(top["rows"][1]["path"], root_ + "/data");
  EXPECT_EQ(nlohmann::json::parse(lines[2])["rows"].size(), 3u);
}

TEST_F(CatalogQueries, ReportEntryInfoAndUsageErrors) {
  auto info = Fathom("report", {"--entry-info", root_ + "/docs/main.c"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("path           : \t" + root_ + "/docs/main.c\n"), std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("size           : \t1.95 KB\n"), std::string::npos) << info.out;
  auto gone = Fathom("report", {"--entry-info", root_ + "/docs/notes.md"});
  EXPECT_EQ(gone.exit_code, 1);
  auto none = Fathom("report", {});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("choose a report"), std::string::npos) << none.err;
  auto big = Fathom("report", {"--big-dirs", "12X"});
  EXPECT_EQ(big.exit_code, 2);
  auto user = Fathom("report", {"--user-info=no-such-user-here"});
  EXPECT_EQ(user.exit_code, 2);
  EXPECT_NE(user.err.find("no user named 'no-such-user-here'"), std::string::npos) << user.err;
}

TEST_F(CatalogQueries, UndeleteListsWhatWasRemoved) {
  auto r = Fathom("undelete", {"--list", root_, "--since", "1h", "--csv", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_NE(lines[0].find(root_ + "/docs/notes.md, "), std::string::npos);
  EXPECT_NE(lines[0].find(",     file,            1023,       4101,       4101,   build.17,         no"),
            std::string::npos)
      << lines[0];
  auto later = Fathom("undelete", {"--list", "--since", "2099-01-01"});
  EXPECT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(Lines(later.out).size(), 3u) << later.out;  // header, empty line, total
}

TEST_F(CatalogQueries, UndeleteWithoutListOrRestoreIsAUsageError) {
  auto r = Fathom("undelete", {root_ + "/docs/notes.md"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "fathom undelete: give --list [PATH] or --restore PATH|FID\n");
  auto help = testing::Run({testing::FathomBinary(), "undelete", "--help"});
  EXPECT_NE(help.out.find("--restore PATH|FID"), std::string::npos) << help.out;
  auto nothing = Fathom("undelete", {"--restore", root_ + "/docs/notes.md"});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_EQ(nothing.err, "fathom undelete: no trashed copy of " + root_ +
                             "/docs/notes.md to restore: no move policy put it in a trash that still holds it (see "
                             "`fathom policy log`)\n");
  auto du_help = testing::Run({testing::FathomBinary(), "du", "--help"});
  EXPECT_NE(du_help.out.find("Examples:"), std::string::npos) << du_help.out;
}

}  // namespace
}  // namespace fathom
