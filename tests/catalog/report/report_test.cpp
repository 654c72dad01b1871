// fathom report's tables (catalog/report/reports.h) on the sample tree filled into a
// catalog: every number checked against what lstat(2) says of the same tree, or against the
// sizes and ages the tree was made with.
#include "catalog/report/reports.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/report/catalog_from_tree.h"
#include "catalog/report/sample_tree.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::catalog::report {
namespace {

using testing::Lines;

// A CSV row's fields, without the padding.
std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = row.find(',', start);
    std::string f = row.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    f.erase(0, f.find_first_not_of(' '));
    fields.push_back(f);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return fields;
}

// The first `n` fields of every line.
std::vector<std::vector<std::string>> Columns(const std::string& text, size_t n) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : Lines(text)) {
    auto f = Fields(line);
    f.resize(std::min(n, f.size()));
    rows.push_back(f);
  }
  return rows;
}

// Robinhood's size text, written out here for the expected values.
std::string RbhSize(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes);
  const char* units[] = {"KB", "MB", "GB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 2) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f %s", v, units[u]);
  return buf;
}

std::string LocalDate(int64_t seconds) {
  time_t t = seconds;
  tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y/%m/%d %T", &local);
  return buf;
}

// What lstat(2) says of every name of the tree.
struct Name {
  std::string path;
  struct stat st;
};

class ReportOnSampleTree : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    root_ = *dir_ / "tree";
    now_ = std::time(nullptr);
    testing::MakeSampleTree(root_, now_);
    auto catalog = testing::CatalogOfTree(*dir_ / "catalog.db", root_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().message();
    catalog_ = catalog.value().release();
    names_ = new std::vector<Name>();
    auto add = [](const std::string& path) {
      Name n{path, {}};
      ASSERT_EQ(lstat(path.c_str(), &n.st), 0) << path;
      names_->push_back(n);
    };
    add(root_);
    for (const auto& e : std::filesystem::recursive_directory_iterator(root_)) add(e.path().string());
  }
  static void TearDownTestSuite() {
    delete catalog_;
    delete names_;
    delete dir_;
  }

  // Each object once.
  static std::vector<Name> Objects() {
    std::vector<Name> objects;
    std::set<ino_t> seen;
    for (const Name& n : *names_) {
      if (seen.insert(n.st.st_ino).second) objects.push_back(n);
    }
    return objects;
  }

  ReportOptions Options() const {
    ReportOptions o;
    o.now_ns = static_cast<int64_t>(std::time(nullptr)) * 1'000'000'000;
    return o;
  }

  static std::string Csv(const Result<Table>& table, bool header = false) {
    EXPECT_TRUE(table.ok()) << table.status().message();
    return table.ok() ? Render(table.value(), TableFormat::kCsv, header) : "";
  }
  static std::string Text(const Result<Table>& table) {
    EXPECT_TRUE(table.ok()) << table.status().message();
    return table.ok() ? Render(table.value(), TableFormat::kText, true) : "";
  }

  static testing::TempDir* dir_;
  static std::string root_;
  static int64_t now_;
  static Catalog* catalog_;
  static std::vector<Name>* names_;
};

testing::TempDir* ReportOnSampleTree::dir_ = nullptr;
std::string ReportOnSampleTree::root_;
int64_t ReportOnSampleTree::now_ = 0;
Catalog* ReportOnSampleTree::catalog_ = nullptr;
std::vector<Name>* ReportOnSampleTree::names_ = nullptr;

TEST_F(ReportOnSampleTree, FsInfoCountsEachTypeFromTheKeptAccounting) {
  struct Sum {
    uint64_t count = 0, size = 0, blocks = 0;
  };
  std::map<std::string, Sum> by_type;
  for (const Name& n : Objects()) {
    std::string type = S_ISDIR(n.st.st_mode) ? "dir" : S_ISLNK(n.st.st_mode) ? "symlink" : "file";
    by_type[type].count++;
    by_type[type].size += n.st.st_size;
    by_type[type].blocks += n.st.st_blocks;
  }
  std::string expected = "    type,      count,          volume,        spc_used,        avg_size\n";
  Sum total;
  for (const auto& [type, s] : by_type) {
    char row[256];
    std::snprintf(row, sizeof(row), "%8s, %10llu, %15llu, %15llu, %15llu\n", type.c_str(),
                  static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.size),
                  static_cast<unsigned long long>(s.blocks * 512),
                  static_cast<unsigned long long>(std::llround(double(s.size) / double(s.count))));
    expected += row;
    total.count += s.count;
    total.size += s.size;
    total.blocks += s.blocks;
  }
  expected += "\nTotal: " + std::to_string(total.count) + " entries, volume: " +
              std::to_string(total.size) + " bytes (" + RbhSize(total.size) +
              "), space used: " + std::to_string(total.blocks * 512) + " bytes (" +
              RbhSize(total.blocks * 512) + ")\n";
  EXPECT_EQ(Csv(FsInfo(*catalog_, Options()), true), expected);
}

TEST_F(ReportOnSampleTree, UserInfoOfOneUserInRobinhoodsTextForm) {
  struct stat docs {};
  ASSERT_EQ(lstat((root_ + "/docs").c_str(), &docs), 0);
  uint64_t file_blocks = 0;
  for (const char* f : {"readme.txt", "report final.pdf", "notes.md", "main.c", "util.c"}) {
    struct stat st {};
    ASSERT_EQ(lstat((root_ + "/docs/" + f).c_str(), &st), 0);
    file_blocks += st.st_blocks;
  }
  auto row = [](const std::string& type, uint64_t count, uint64_t size, uint64_t used,
                uint64_t avg) {
    char buf[256];
    std::snprintf(buf, sizeof(buf), "%10s, %8s, %10llu, %10s, %10s, %10s", "4101", type.c_str(),
                  static_cast<unsigned long long>(count), RbhSize(size).c_str(),
                  RbhSize(used).c_str(), RbhSize(avg).c_str());
    return std::string(buf);
  };
  EXPECT_EQ(Lines(Text(OwnerInfo(*catalog_, Options(), Owner::kUser, testing::kSampleUserA))),
            (std::vector<std::string>{
                "      user,     type,      count,     volume,   spc_used,   avg_size",
                row("dir", 1, docs.st_size, docs.st_blocks * 512, docs.st_size),
                row("file", 5, 8423, file_blocks * 512, 1685),
                "",
                "Total: 6 entries, volume: " + std::to_string(8423 + docs.st_size) + " bytes (" +
                    RbhSize(8423 + docs.st_size) + "), space used: " +
                    std::to_string((file_blocks + docs.st_blocks) * 512) + " bytes (" +
                    RbhSize((file_blocks + docs.st_blocks) * 512) + ")",
            }));
}

TEST_F(ReportOnSampleTree, TopUsersRankRegularFilesByVolumeOrEveryEntryByCount) {
  std::map<uint32_t, uint64_t> files, blocks, entries;
  for (const Name& n : Objects()) {
    if (S_ISREG(n.st.st_mode)) {
      files[n.st.st_uid]++;
      blocks[n.st.st_uid] += n.st.st_blocks;
    }
    entries[n.st.st_uid]++;
  }
  auto row = [&](const char* rank, const char* user, uint32_t uid, uint64_t volume) {
    return std::vector<std::string>{rank, user, std::to_string(volume),
                                    std::to_string(blocks[uid] * 512), std::to_string(files[uid]),
                                    std::to_string((volume * 2 + files[uid]) / (2 * files[uid]))};
  };
  // root: deep/.../leaf.txt, line\nbreak/inner.txt, the latin-1 name, sizes/*; 4102: data/*.
  EXPECT_EQ(Columns(Csv(TopOwners(*catalog_, Options(), Owner::kUser, 20)), 6),
            (std::vector<std::vector<std::string>>{row("1", "root", 0, 13670339),
                                                   row("2", "4102", 4102, 11782459),
                                                   row("3", "4101", 4101, 8423)}));
  ReportOptions by_count = Options();
  by_count.by_count = true;
  auto rows = Columns(Csv(TopOwners(*catalog_, by_count, Owner::kUser, 2)), 5);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1], "root");
  EXPECT_EQ(rows[0][4], std::to_string(entries[0]));
  EXPECT_EQ(rows[1][1], "4102");
  EXPECT_EQ(rows[1][4], std::to_string(entries[4102]));
}

TEST_F(ReportOnSampleTree, TopGroupsRankLikeTopUsers) {
  EXPECT_EQ(Columns(Csv(TopOwners(*catalog_, Options(), Owner::kGroup, 3)), 3),
            (std::vector<std::vector<std::string>>{
                {"1", "root", "13670339"}, {"2", "4202", "11782459"}, {"3", "4201", "8423"}}));
}

TEST_F(ReportOnSampleTree, CountMinLeavesOutRowsOfFewerEntries) {
  ReportOptions o = Options();
  o.count_min = 6;
  EXPECT_EQ(Columns(Csv(OwnerInfo(*catalog_, o, Owner::kUser, std::nullopt)), 3),
            (std::vector<std::vector<std::string>>{
                {"4102", "file", "9"}, {"root", "dir", "10"}, {"root", "file", "13"}}));
}

TEST_F(ReportOnSampleTree, FilterPathSumsTheMatchingEntriesWithMinAndMax) {
  struct stat docs {};
  ASSERT_EQ(lstat((root_ + "/docs").c_str(), &docs), 0);
  ReportOptions o = Options();
  o.filter_path = root_ + "/docs";
  std::string csv = Csv(OwnerInfo(*catalog_, o, Owner::kUser, std::nullopt), true);
  auto lines = Lines(csv);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "filter path: " + root_ + "/docs");
  EXPECT_EQ(Fields(lines[1]), (std::vector<std::string>{"user", "type", "count", "volume",
                                                         "spc_used", "min_size", "max_size",
                                                         "avg_size"}));
  std::string d = std::to_string(docs.st_size);
  EXPECT_EQ(Fields(lines[2])[0] + " " + Fields(lines[2])[1] + " " + Fields(lines[2])[2] + " " +
                Fields(lines[2])[5] + " " + Fields(lines[2])[6],
            "4101 dir 1 " + d + " " + d);
  auto file = Fields(lines[3]);
  EXPECT_EQ(file[1] + " " + file[2] + " " + file[3] + " " + file[5] + " " + file[6] + " " + file[7],
            "file 5 8423 100 5000 1685");

  ReportOptions glob = Options();
  glob.filter_path = root_ + "/d*";  // docs, data, deep and all below them
  auto rows = Columns(Csv(FsInfo(*catalog_, glob)), 2);
  EXPECT_EQ(rows, (std::vector<std::vector<std::string>>{{"dir", "7"}, {"file", "15"}}));
}

// Per directory: names in its subtree (itself included, a file counted at each name) and
// their sizes.
std::map<std::string, std::pair<uint64_t, uint64_t>> SubtreeSums(const std::vector<Name>& names) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> sums;
  for (const Name& dir : names) {
    if (!S_ISDIR(dir.st.st_mode)) continue;
    for (const Name& n : names) {
      if (n.path == dir.path || n.path.rfind(dir.path + "/", 0) == 0) {
        sums[dir.path].first++;
        sums[dir.path].second += n.st.st_size;
      }
    }
  }
  return sums;
}

TEST_F(ReportOnSampleTree, TopDirsRankByKeptSubtreeEntriesOrVolume) {
  auto sums = SubtreeSums(*names_);
  auto row = [&](const std::string& rel) {
    std::string path = rel.empty() ? root_ : root_ + "/" + rel;
    return std::vector<std::string>{path, std::to_string(sums[path].first),
                                    std::to_string(sums[path].second)};
  };
  auto ranked = [](const std::string& csv) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : Columns(csv, 4)) rows.push_back({r[1], r[2], r[3]});
    return rows;
  };
  EXPECT_EQ(ranked(Csv(TopDirs(*catalog_, Options(), 4))),
            (std::vector<std::vector<std::string>>{row(""), row("data"), row("sizes"), row("deep")}));
  ReportOptions by_size = Options();
  by_size.by_size = true;
  EXPECT_EQ(ranked(Csv(TopDirs(*catalog_, by_size, 3))),
            (std::vector<std::vector<std::string>>{row(""), row("sizes"), row("data")}));
}

TEST_F(ReportOnSampleTree, BigDirsAreThoseAboveACountOrAVolume) {
  auto paths = [](const std::string& csv) {
    std::vector<std::string> out;
    for (const auto& r : Columns(csv, 1)) out.push_back(r[0]);
    return out;
  };
  EXPECT_EQ(paths(Csv(BigDirs(*catalog_, Options(), std::nullopt, 10))),
            (std::vector<std::string>{root_, root_ + "/data", root_ + "/sizes"}));
  EXPECT_EQ(paths(Csv(BigDirs(*catalog_, Options(), 1 << 20, std::nullopt))),
            (std::vector<std::string>{root_, root_ + "/sizes", root_ + "/data"}));
  EXPECT_EQ(paths(Csv(BigDirs(*catalog_, Options(), 100'000'000, std::nullopt))),
            std::vector<std::string>{});
}

TEST_F(ReportOnSampleTree, TopSizeListsTheLargestFilesFirst) {
  struct stat st {};
  ASSERT_EQ(lstat((root_ + "/sizes/s10485761").c_str(), &st), 0);
  auto rows = Columns(Csv(TopSize(*catalog_, Options(), 4)), 7);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", root_ + "/sizes/s10485761", "10485761", "root",
                                               "root", LocalDate(now_ - 7 * 86400),
                                               LocalDate(now_ - 6 * 86400)}));
  EXPECT_EQ(rows[1][1] + " " + rows[1][2], root_ + "/data/sparse.img 10485760");
  EXPECT_EQ(rows[2][1] + " " + rows[2][2], root_ + "/data/holey.dat 1048577");
  EXPECT_EQ(rows[3][1] + " " + rows[3][2], root_ + "/sizes/s1048577 1048577");
}

TEST_F(ReportOnSampleTree, OldestFilesByAccessTime) {
  std::vector<std::string> paths;
  for (const auto& r : Columns(Csv(OldestFiles(*catalog_, Options(), 4)), 2)) paths.push_back(r[1]);
  EXPECT_EQ(paths, (std::vector<std::string>{root_ + "/data/big.bin", root_ + "/docs/readme.txt",
                                             root_ + "/data/sparse.img", root_ + "/docs/main.c"}));
}

TEST_F(ReportOnSampleTree, OldestEmptyDirsByModificationTime) {
  EXPECT_EQ(Columns(Csv(OldestEmptyDirs(*catalog_, Options(), 20)), 5),
            (std::vector<std::vector<std::string>>{
                {"1", root_ + "/empty", "root", "root", LocalDate(now_ - 300 * 86400)},
                {"2", root_ + "/deep/a/empty too", "root", "root", LocalDate(now_ - 30 * 86400)}}));
}

TEST_F(ReportOnSampleTree, AgeHistogramsOfModificationAndAccess) {
  auto counts = [](const std::string& csv) {
    std::vector<std::string> out;
    for (const auto& r : Columns(csv, 2)) out.push_back(r[0] + "=" + r[1]);
    return out;
  };
  // mtime ages in days: 400 40 3 100 10 | 700 200 50 20 5 2 1 30 60 | 90 8 15 | 6 (x10).
  EXPECT_EQ(counts(Csv(AgeHistogram(*catalog_, Options(), false))),
            (std::vector<std::string>{"0~1d=0", "1d~1w=14", "1w~30d=4", "30d~90d=4",
                                      "90d~180d=2", "180d~1y=1", "1y~2y=2", "+2y=0"}));
  // atime: one day older each, so sizes/* (7 days) move to 1w~30d.
  EXPECT_EQ(counts(Csv(AgeHistogram(*catalog_, Options(), true))),
            (std::vector<std::string>{"0~1d=0", "1d~1w=4", "1w~30d=14", "30d~90d=4",
                                      "90d~180d=2", "180d~1y=1", "1y~2y=2", "+2y=0"}));
}

TEST_F(ReportOnSampleTree, SizeLog2BinsEveryFileOnce) {
  std::map<int, std::pair<uint64_t, uint64_t>> bins;
  for (int64_t size : {100, 5000, 1023, 2000, 300, 200000, 10485760, 1048577, 4096, 1, 0, 1025,
                       3000, 40000, 3000, 10, 2048, 1023, 1024, 1025, 10239, 10240, 10241, 1048575,
                       1048576, 1048577, 10485761}) {
    int bin = size == 0 ? -1 : static_cast<int>(std::floor(std::log2(double(size))));
    bins[bin].first++;
    bins[bin].second += size;
  }
  std::vector<std::vector<std::string>> expected;
  for (const auto& [bin, s] : bins) {
    uint64_t min = bin < 0 ? 0 : uint64_t{1} << bin;
    uint64_t max = bin < 0 ? 0 : (uint64_t{2} << bin) - 1;
    expected.push_back({std::to_string(min), std::to_string(max), std::to_string(s.first),
                        std::to_string(s.second)});
  }
  EXPECT_EQ(Columns(Csv(SizeLog2(*catalog_, Options())), 4), expected);
}

TEST_F(ReportOnSampleTree, ExtensionsByCountThenVolume) {
  EXPECT_EQ(Columns(Csv(Extensions(*catalog_, Options())), 3),
            (std::vector<std::vector<std::string>>{
                {"(none)", "16", std::to_string(4096 + 1 + 0 + 1025 + 3000 + 2048 + 13665281)},
                {"txt", "3", "3110"},
                {"c", "2", "2300"},
                {"img", "1", "10485760"},
                {"dat", "1", "1048577"},
                {"bin", "1", "200000"},
                {"gz", "1", "40000"},
                {"pdf", "1", "5000"},
                {"md", "1", "1023"}}));
}

TEST_F(ReportOnSampleTree, EntryInfoOfAHardLinkNamesBothPaths) {
  auto table = EntryInfo(*catalog_, root_ + "/data/hard-b");
  ASSERT_TRUE(table.ok()) << table.status().message();
  auto lines = Lines(RenderEntryInfo(table.value(), TableFormat::kText));
  ASSERT_GE(lines.size(), 9u);
  EXPECT_EQ(lines[0].substr(0, 18), "id             : \t");
  EXPECT_EQ(std::vector<std::string>(lines.begin() + 1, lines.begin() + 9),
            (std::vector<std::string>{
                "path           : \t" + root_ + "/data/hard-a",
                "path           : \t" + root_ + "/data/hard-b",
                "type           : \tfile",
                "size           : \t2.93 KB",
                lines[5].substr(0, 18) == "spc_used       : \t" ? lines[5] : "spc_used missing",
                "user           : \t4102",
                "group          : \t4202",
                "mode           : \t0644",
            }));
  EXPECT_FALSE(EntryInfo(*catalog_, root_ + "/data/nothing").ok());
}

TEST_F(ReportOnSampleTree, JsonRowsCarryRawNumbers) {
  auto table = TopOwners(*catalog_, Options(), Owner::kUser, 1);
  ASSERT_TRUE(table.ok());
  auto doc = nlohmann::json::parse(Render(table.value(), TableFormat::kJson, true));
  EXPECT_EQ(doc["report"], "top-users");
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_EQ(doc["rows"][0]["rank"], 1);
  EXPECT_EQ(doc["rows"][0]["user"], "root");
  EXPECT_EQ(doc["rows"][0]["volume"], 13670339);
}

TEST_F(ReportOnSampleTree, DumpListsEachObjectOnce) {
  auto objects = Objects();
  uint64_t bytes = 0;
  for (const Name& n : objects) bytes += n.st.st_size;
  auto table = Dump(*catalog_, Options());
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table.value().rows.size(), objects.size());
  EXPECT_EQ(table.value().footer, "Total: " + std::to_string(objects.size()) + " entries, " +
                                      std::to_string(bytes) + " bytes (" + RbhSize(bytes) + ")");
}

}  // namespace
}  // namespace fathom::catalog::report
