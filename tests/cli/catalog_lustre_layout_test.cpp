// `fathom scan` of a fathom-lustre-sim mount with 4 OSTs and two pools, files striped
// differently (directory defaults, pools, explicit start OSTs, every OST): the catalog's
// layout columns hold what `lfs getstripe` prints, and `fathom find -ost N` / `-pool NAME`
// (alone and combined) list exactly the files whose stripes are there — in a SQLite catalog
// and in a PostgreSQL one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fathom/catalog.h"
#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"
#include "support/postgres_server.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

std::string Tool(const char* name) { return std::string(FATHOM_BUILD_DIR) + "/lustre/" + name; }

struct FileLayout {
  std::set<uint32_t> osts;
  std::vector<uint32_t> ordered;
  std::string pool;
  uint64_t count = 0;
  uint64_t size = 0;
};

class LayoutTree {
 public:
  explicit LayoutTree(const std::string& mount) : m_(mount) {}

  // Pools fast = OST2,3 and slow = OST0,1; directories with and without defaults; files
  // made by writing (inheriting) and by lfs setstripe (explicit).
  void Make() {
    Ok(Tool("lctl"), {"pool_new", "simfs.fast"});
    Ok(Tool("lctl"), {"pool_add", "simfs.fast", "simfs-OST[0002-0003]"});
    Ok(Tool("lctl"), {"pool_new", "simfs.slow"});
    Ok(Tool("lctl"), {"pool_add", "simfs.slow", "OST0000", "OST0001"});
    for (const char* d : {"fast/sub", "slow", "wide", "plain/deep"}) MakeDirs(m_ + "/" + d);
    Ok(Tool("lfs"), {"setstripe", "-p", "fast", "-c", "2", m_ + "/fast"});
    Ok(Tool("lfs"), {"setstripe", "-p", "slow", m_ + "/slow"});
    Ok(Tool("lfs"), {"setstripe", "-c", "-1", "-S", "4M", m_ + "/wide"});
    for (const char* f : {"fast/a", "fast/b", "fast/sub/c", "slow/a", "slow/b", "slow/c", "wide/a",
                          "plain/a", "plain/b", "plain/c", "plain/deep/d", "plain/deep/e"}) {
      WriteFile(m_ + "/" + f, f);
      files_.push_back(f);
    }
    Ok(Tool("lfs"), {"setstripe", "-i", "2", m_ + "/plain/on2"});
    Ok(Tool("lfs"), {"setstripe", "-p", "slow", "-i", "1", m_ + "/fast/override"});
    Ok(Tool("lfs"), {"setstripe", "-c", "3", "-i", "3", "-S", "256k", m_ + "/plain/three"});
    for (const char* f : {"plain/on2", "fast/override", "plain/three"}) files_.push_back(f);
    ASSERT_EQ(symlink("a", (m_ + "/plain/link").c_str()), 0);
    // What lfs prints of each file is what the catalog must hold.
    for (const std::string& f : files_) layouts_[f] = Read(m_ + "/" + f);
  }

  // The absolute paths of the files `match` accepts.
  std::set<std::string> Files(const std::function<bool(const FileLayout&)>& match) const {
    std::set<std::string> out;
    for (const auto& [rel, layout] : layouts_) {
      if (match(layout)) out.insert(m_ + "/" + rel);
    }
    return out;
  }
  const std::map<std::string, FileLayout>& layouts() const { return layouts_; }

 private:
  static void Ok(const std::string& tool, std::vector<std::string> args) {
    args.insert(args.begin(), tool);
    RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << args[1] << ": " << r.err;
  }
  static std::string Value(const std::string& flag, const std::string& path) {
    RunResult r = Run({Tool("lfs"), "getstripe", flag, path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }
  static FileLayout Read(const std::string& path) {
    FileLayout layout;
    layout.count = std::stoull(Value("-c", path));
    layout.size = std::stoull(Value("-S", path));
    layout.pool = Value("-p", path);
    RunResult r = Run({Tool("lfs"), "getstripe", path});
    size_t at = r.out.find("group\n");
    EXPECT_NE(at, std::string::npos) << r.out;
    for (size_t line = at + 6; at != std::string::npos && line < r.out.size() && r.out[line] == '\t';
         line = r.out.find('\n', line) + 1) {
      unsigned idx = 0;
      if (std::sscanf(r.out.c_str() + line, "%u", &idx) != 1) break;
      layout.osts.insert(idx);
      layout.ordered.push_back(idx);
    }
    return layout;
  }

  std::string m_;
  std::vector<std::string> files_;
  std::map<std::string, FileLayout> layouts_;
};

std::set<std::string> Lines(const std::string& text) {
  std::set<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (nl > start) out.insert(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// Scans the mount into `catalog`, then checks the columns and the find answers.
void ScanAndFind(const std::string& mount, const std::string& catalog_uri, const LayoutTree& tree) {
  RunResult scanned =
      Run({FathomBinary(), "scan", "-q", "--catalog", catalog_uri, "--lustre-library", LibraryPath(), mount});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;

  catalog::CatalogOptions options;
  options.uri = catalog_uri;
  options.read_only = true;
  auto opened = catalog::Catalog::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  for (const auto& [rel, layout] : tree.layouts()) {
    SCOPED_TRACE(rel);
    auto node = (*opened)->Stat(mount + "/" + rel);
    ASSERT_TRUE(node.ok() && node->has_value());
    const auto& lustre = (*node)->attrs.lustre;
    ASSERT_TRUE(lustre.has_value());
    EXPECT_EQ(lustre->stripe_count, layout.count);
    EXPECT_EQ(lustre->stripe_size, layout.size);
    EXPECT_EQ(lustre->pool, layout.pool);
    EXPECT_EQ(lustre->osts, layout.ordered);
  }
  for (const char* rel : {"", "/fast", "/plain/link"}) {  // no layout: directories, links
    auto node = (*opened)->Stat(mount + rel);
    ASSERT_TRUE(node.ok() && node->has_value());
    EXPECT_EQ((*node)->attrs.lustre->stripe_count, 0u) << rel;
    EXPECT_TRUE((*node)->attrs.lustre->osts.empty()) << rel;
  }

  struct Query {
    std::vector<std::string> expr;
    std::function<bool(const FileLayout&)> match;
  };
  const std::vector<Query> queries = {
      {{"-ost", "0"}, [](const FileLayout& l) { return l.osts.count(0) > 0; }},
      {{"-ost", "2"}, [](const FileLayout& l) { return l.osts.count(2) > 0; }},
      {{"-ost", "3"}, [](const FileLayout& l) { return l.osts.count(3) > 0; }},
      {{"-pool", "fast"}, [](const FileLayout& l) { return l.pool == "fast"; }},
      {{"-pool", "slow"}, [](const FileLayout& l) { return l.pool == "slow"; }},
      {{"-ost", "1", "-o", "-pool", "slow"}, [](const FileLayout& l) { return l.osts.count(1) > 0 || l.pool == "slow"; }},
      {{"-ost", "2", "-not", "-pool", "fast"}, [](const FileLayout& l) { return l.osts.count(2) > 0 && l.pool != "fast"; }},
      {{"-pool", "fast", "-ost", "3"}, [](const FileLayout& l) { return l.pool == "fast" && l.osts.count(3) > 0; }},
  };
  for (const Query& q : queries) {
    std::vector<std::string> args = {FathomBinary(), "find", "--catalog", catalog_uri, mount};
    args.insert(args.end(), q.expr.begin(), q.expr.end());
    RunResult found = Run(args);
    std::string shown;
    for (const auto& a : q.expr) shown += a + " ";
    ASSERT_EQ(found.exit_code, 0) << shown << found.err;
    const std::set<std::string> expected = tree.Files(q.match);
    EXPECT_FALSE(expected.empty()) << shown;
    EXPECT_EQ(Lines(found.out), expected) << shown;
  }
  // One file's entry-info shows its layout.
  RunResult info = Run({FathomBinary(), "report", "--catalog", catalog_uri, "--entry-info", mount + "/plain/three"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("stripe_count"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("3,0,1"), std::string::npos) << info.out;
}

class CatalogLustreLayoutTest : public ::testing::Test {
 protected:
  MountedFs fs_{1};
};

TEST_F(CatalogLustreLayoutTest, FindOstAndPoolListTheFilesStripedThereInSqlite) {
  ASSERT_TRUE(fs_.mounted());
  LayoutTree tree(fs_.mount());
  ASSERT_NO_FATAL_FAILURE(tree.Make());
  // The tree covers what the queries tell apart.
  EXPECT_EQ(tree.layouts().at("wide/a").osts.size(), 4u);
  EXPECT_EQ(tree.layouts().at("fast/sub/c").pool, "fast");
  EXPECT_EQ(tree.layouts().at("fast/override").pool, "slow");
  ScanAndFind(fs_.mount(), fs_.dir() / "catalog.db", tree);
}

TEST_F(CatalogLustreLayoutTest, FindOstAndPoolListTheFilesStripedThereInPostgresql) {
  ASSERT_TRUE(fs_.mounted());
  PostgresServer server;
  LayoutTree tree(fs_.mount());
  ASSERT_NO_FATAL_FAILURE(tree.Make());
  ScanAndFind(fs_.mount(), server.uri(), tree);
}

}  // namespace
}  // namespace fathom::testing
