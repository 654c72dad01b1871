// Real programs on a fathom-lustre-sim mount, its command line's errors, and its speed.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "sim_fixture.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

class SimProgramsTest : public SimMountTest {};

void MakeSmallTree(const std::string& root) {
  MakeDirs(root + "/tree/sub/deeper");
  WriteFile(root + "/tree/a.txt", "alpha\n");
  WriteFile(root + "/tree/sub/b.bin", std::string(200000, 'b'));
  WriteFile(root + "/tree/sub/deeper/c", "gamma");
  ASSERT_EQ(symlink("a.txt", (root + "/tree/link").c_str()), 0);
  ASSERT_EQ(link((root + "/tree/a.txt").c_str(), (root + "/tree/sub/a-hard").c_str()), 0);
  ASSERT_EQ(chmod((root + "/tree/sub/deeper/c").c_str(), 0640), 0);
}

bool HaveGit() { return access("/usr/bin/git", X_OK) == 0; }

TEST_F(SimProgramsTest, TarCpAndGitRoundTripATree) {
  ASSERT_EQ(Mount(2).exit_code, 0);
  RegisterEverywhere(2);
  MakeSmallTree(mount());
  std::string tarball = backing() + "/../tree.tar";
  auto packed = testing::Run({"/usr/bin/tar", "-C", mount(), "-cf", tarball, "tree"});
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  MakeDirs(mount() + "/untar");
  auto unpacked = testing::Run({"/usr/bin/tar", "-C", mount() + "/untar", "-xpf", tarball});
  ASSERT_EQ(unpacked.exit_code, 0) << unpacked.err;
  auto cp = testing::Run({"/bin/cp", "-a", mount() + "/tree", mount() + "/copy"});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  for (const std::string& other : {mount() + "/untar/tree", mount() + "/copy"}) {
    auto diff = testing::Run({"/usr/bin/diff", "-r", "--no-dereference", mount() + "/tree", other});
    EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  }
  struct stat a{}, h{};
  ASSERT_EQ(lstat((mount() + "/copy/a.txt").c_str(), &a), 0);
  ASSERT_EQ(lstat((mount() + "/copy/sub/a-hard").c_str(), &h), 0);
  EXPECT_EQ(a.st_ino, h.st_ino) << "cp -a keeps hard links";
  EXPECT_EQ(a.st_nlink, 2u);
  if (HaveGit()) {
    std::string repo = mount() + "/copy";
    auto git = [&](std::vector<std::string> args) {
      args.insert(args.begin(), {"/usr/bin/git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@e"});
      return testing::Run(std::move(args));
    };
    ASSERT_EQ(git({"init", "-q"}).exit_code, 0);
    ASSERT_EQ(git({"add", "-A"}).exit_code, 0);
    auto commit = git({"commit", "-q", "-m", "tree"});
    ASSERT_EQ(commit.exit_code, 0) << commit.err;
    auto status = git({"status", "--porcelain"});
    EXPECT_EQ(status.out, "");
    auto fsck = git({"fsck", "--no-progress"});
    EXPECT_EQ(fsck.exit_code, 0) << fsck.err;
  }
  // Everything above is in the backing directory too.
  auto diff = testing::Run({"/usr/bin/diff", "-r", "--no-dereference", mount(), backing()});
  EXPECT_EQ(diff.exit_code, 0) << diff.out;
}

TEST_F(SimProgramsTest, MountRefusesBusyMountPointAndForeignState) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  auto again = Mount(1);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, ::testing::HasSubstr("already a mount point"));
  EXPECT_THAT(again.err, ::testing::HasSubstr("fathom-lustre-sim umount"));
  ASSERT_EQ(Umount().exit_code, 0);
  auto other = testing::Run({SimBinary(), "mount", "--fsname", "otherfs", "--mdts", "1", "--state", state(), "--backing",
                    backing(), mount()});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_THAT(other.err, ::testing::HasSubstr("testfs"));
  auto status = testing::Run({SimBinary(), "status"});
  EXPECT_THAT(status.out, ::testing::HasSubstr("no emulated file systems"));
  auto notmounted = Umount();
  EXPECT_EQ(notmounted.exit_code, 1);
  EXPECT_THAT(notmounted.err, ::testing::HasSubstr("is not mounted"));
}

bool RunCycles(const std::string& dir, int cycles) {
  for (int i = 0; i < cycles; ++i) {
    std::string path = dir + "/c" + std::to_string(i);
    int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return false;
    close(fd);
    if (unlink(path.c_str()) != 0) return false;
  }
  return true;
}

TEST_F(SimProgramsTest, EveryCreateCloseUnlinkCycleLogsOneCreatAndOneUnlnk) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  MakeDirs(mount() + "/m");
  constexpr int kCycles = 2000;
  ASSERT_TRUE(RunCycles(mount() + "/m", kCycles)) << "a cycle failed on the mount";
  // Each cycle logs CREAT and UNLNK (CLOSE only for files opened for writing: this one is).
  size_t creates = 0, unlinks = 0;
  for (const auto& r : Changelog(0)) {
    creates += r.type == CL_CREATE;
    unlinks += r.type == CL_UNLINK;
  }
  EXPECT_EQ(creates, static_cast<size_t>(kCycles));
  EXPECT_EQ(unlinks, static_cast<size_t>(kCycles));
}

}  // namespace
}  // namespace fathom::testing
