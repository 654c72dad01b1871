// The scanner against GNU find: the same records (path, inode, size, mode, owner, links,
// mtime, device, link target) for every name of generated trees, as root and as another user,
// with and without a file system mounted below the root.
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "catalog/scan/scan_test_trees.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

std::vector<std::string> AsNobody(std::vector<std::string> argv) {
  std::vector<std::string> out{"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

TEST(ScannerFindTest, AwkwardTreeGivesFindsRecordsWithAnyThreadsAndChunkSize) {
  TempDir t;
  const std::string root = t / "tree";
  MakeDirs(root);
  MakeAwkwardTree(root);
  std::vector<std::string> want, got;
  std::string err;
  ASSERT_EQ(RunRecords({"find", root, "-printf", kFindFormat}, t.path(), want, err), 0) << err;
  ASSERT_EQ(want.size(), 366u);
  for (const auto& [threads, chunk] : {std::pair{"1", "1024"}, {"4", "7"}, {"2", "1"}}) {
    ASSERT_EQ(RunRecords({ScanPrintBinary(), "--threads", threads, "--chunk", chunk, root},
                         t.path(), got, err),
              0)
        << err;
    EXPECT_EQ(got, want) << "threads " << threads << ", chunk " << chunk;
    EXPECT_EQ(err, "");
  }
}

TEST(ScannerFindTest, UnreadableDirectoryIsReportedWithItsPathAndTheRestScanned) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to scan as another user";
  TempDir t;
  ASSERT_EQ(chmod(t.path().c_str(), 0755), 0);
  const std::string root = t / "tree";
  MakeDirs(root + "/secret/inner");
  WriteFile(root + "/secret/inner/file", "x");
  WriteFile(root + "/open", "y");
  MakeDirs(root + "/after");
  WriteFile(root + "/after/z", "z");
  ASSERT_EQ(chmod((root + "/secret").c_str(), 0700), 0);  // root's: nobody may not read it
  ASSERT_EQ(chmod(root.c_str(), 0755), 0);
  const std::string scratch = t / "scratch";
  MakeDirs(scratch);
  ASSERT_EQ(chmod(scratch.c_str(), 0777), 0);

  std::vector<std::string> want, got;
  std::string find_err, scan_err;
  EXPECT_EQ(RunRecords(AsNobody({"find", root, "-printf", kFindFormat}), scratch, want, find_err),
            1);
  EXPECT_NE(find_err.find("secret"), std::string::npos) << find_err;
  ASSERT_EQ(RunRecords(AsNobody({ScanPrintBinary(), root}), scratch, got, scan_err), 0) << scan_err;
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.size(), 5u);  // tree, secret, open, after, after/z
  EXPECT_EQ(scan_err, "problem\t" + std::to_string(EACCES) + "\t" + root + "/secret\n");
}

class ScannerMountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a tmpfs";
    root_ = t_ / "tree";
    MakeDirs(root_ + "/sub/mnt");
    WriteFile(root_ + "/sub/before", "1");
    if (mount("none", (root_ + "/sub/mnt").c_str(), "tmpfs", 0, "size=4m") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    }
    mounted_ = true;
    MakeDirs(root_ + "/sub/mnt/inside/deeper");
    WriteFile(root_ + "/sub/mnt/inside/deeper/f", "22");
    WriteFile(root_ + "/sub/mnt/top", "333");
  }
  void TearDown() override {
    if (mounted_) umount2((root_ + "/sub/mnt").c_str(), MNT_DETACH);
  }
  TempDir t_;
  std::string root_;
  bool mounted_ = false;
};

TEST_F(ScannerMountTest, MountPointIsReportedButNotEnteredByDefault) {
  std::vector<std::string> want, got;
  std::string err;
  ASSERT_EQ(RunRecords({"find", root_, "-xdev", "-printf", kFindFormat}, t_.path(), want, err), 0);
  ASSERT_EQ(RunRecords({ScanPrintBinary(), root_}, t_.path(), got, err), 0) << err;
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.size(), 4u);  // tree, sub, sub/before, sub/mnt
}

TEST_F(ScannerMountTest, CrossDevicesReadsTheMountedFileSystemToo) {
  std::vector<std::string> want, got;
  std::string err;
  ASSERT_EQ(RunRecords({"find", root_, "-printf", kFindFormat}, t_.path(), want, err), 0);
  ASSERT_EQ(RunRecords({ScanPrintBinary(), "--cross", root_}, t_.path(), got, err), 0) << err;
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.size(), 8u);
}

}  // namespace
}  // namespace fathom::testing
