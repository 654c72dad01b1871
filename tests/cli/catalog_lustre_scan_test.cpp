// `fathom scan` of a 4-MDT fathom-lustre-sim mount (a real FUSE mount) through the emulator's
// liblustreapi: the catalog's Lustre columns hold, for every object, the FID `lfs path2fid`
// prints and the MDT `lfs getstripe -m` / `lfs getdirstripe -m` print; regular files have
// the default layout (catalog_lustre_layout_test covers layouts and pools).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fathom/catalog.h"
#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

std::string LfsBinary() { return std::string(FATHOM_BUILD_DIR) + "/lustre/lfs"; }

// What an lfs command prints, without its newline.
std::string LfsOutput(std::vector<std::string> args) {
  args.insert(args.begin(), LfsBinary());
  RunResult r = fathom::testing::Run(std::move(args));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

class CatalogLustreScanTest : public ::testing::Test {
 protected:
  MountedFs fs_{4};
  std::string catalog_ = fs_.dir() / "catalog.db";
};

TEST_F(CatalogLustreScanTest, EveryObjectHasTheFidAndMdtLfsPrints) {
  ASSERT_TRUE(fs_.mounted());
  const std::string m = fs_.mount();
  for (int mdt = 0; mdt < 4; ++mdt) {
    const std::string dir = m + "/on" + std::to_string(mdt);
    ASSERT_EQ(fathom::testing::Run({LfsBinary(), "mkdir", "-i", std::to_string(mdt), dir}).exit_code, 0);
    MakeDirs(dir + "/sub");
    WriteFile(dir + "/sub/f", "data");
  }
  ASSERT_EQ(fathom::testing::Run({LfsBinary(), "mkdir", "-i", "3", m + "/on1/sub/on3"}).exit_code, 0);
  WriteFile(m + "/on1/sub/on3/g", "x");
  ASSERT_EQ(symlink("sub/f", (m + "/on2/link").c_str()), 0);
  ASSERT_EQ(link((m + "/on0/sub/f").c_str(), (m + "/on2/hard").c_str()), 0);

  RunResult scanned = fathom::testing::Run({FathomBinary(), "scan", "-q", "--catalog", catalog_, "--lustre-library", LibraryPath(), m});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;

  catalog::CatalogOptions options;
  options.uri = catalog_;
  options.read_only = true;
  auto opened = catalog::Catalog::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  catalog::Catalog& cat = *opened.value();
  const std::vector<std::pair<std::string, bool>> objects = {
      {"", true},          {"/on0", true},      {"/on1", true},         {"/on2", true},
      {"/on3", true},      {"/on0/sub", true},  {"/on1/sub/on3", true}, {"/on0/sub/f", false},
      {"/on1/sub/f", false}, {"/on3/sub/f", false}, {"/on1/sub/on3/g", false}, {"/on2/link", false},
      {"/on2/hard", false}};
  std::vector<uint32_t> mdts_seen;
  for (const auto& [rel, is_dir] : objects) {
    SCOPED_TRACE(rel);
    auto node = cat.Stat(m + rel);
    ASSERT_TRUE(node.ok()) << node.status().message();
    ASSERT_TRUE(node.value().has_value());
    const std::optional<catalog::LustreInfo>& lustre = node.value()->attrs.lustre;
    ASSERT_TRUE(lustre.has_value());
    EXPECT_EQ(lustre->fid, LfsOutput({"path2fid", m + rel}));
    const std::string mdt = LfsOutput({is_dir ? "getdirstripe" : "getstripe", "-m", m + rel});
    EXPECT_EQ(std::to_string(lustre->mdt_index), mdt);
    mdts_seen.push_back(lustre->mdt_index);
    // Regular files have the default layout (one 1 MiB stripe); nothing else has one.
    const bool file = !is_dir && rel != "/on2/link";
    EXPECT_EQ(lustre->stripe_count, file ? 1u : 0u);
    EXPECT_EQ(lustre->stripe_size, file ? 1048576u : 0u);
    EXPECT_EQ(lustre->pool, "");
    if (file) {
      ASSERT_EQ(lustre->osts.size(), 1u);
      EXPECT_EQ(std::to_string(lustre->osts[0]), LfsOutput({"getstripe", "-i", m + rel}));
    } else {
      EXPECT_TRUE(lustre->osts.empty());
    }
  }
  // Every MDT is among them (the columns are not all one value).
  for (uint32_t mdt = 0; mdt < 4; ++mdt) {
    EXPECT_NE(std::find(mdts_seen.begin(), mdts_seen.end(), mdt), mdts_seen.end()) << "MDT" << mdt;
  }
  // The mount and the catalog agree, and .lustre (not listed) was not scanned.
  RunResult verify = fathom::testing::Run({FathomBinary(), "catalog", "verify", "--catalog", catalog_, m});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_FALSE(cat.Stat(m + "/.lustre").value().has_value());
}

TEST_F(CatalogLustreScanTest, ALustreLibraryThatCannotBeLoadedIsAnError) {
  ASSERT_TRUE(fs_.mounted());
  const std::string missing = fs_.dir() / "no-such-liblustreapi.so";
  RunResult scanned = fathom::testing::Run({FathomBinary(), "scan", "-q", "--catalog", catalog_, "--lustre-library", missing, fs_.mount()});
  EXPECT_EQ(scanned.exit_code, 1);
  EXPECT_NE(scanned.err.find(missing), std::string::npos) << scanned.err;
}

}  // namespace
}  // namespace fathom::testing
