// MOUNT/.lustre/fid/[FID] on a fathom-lustre-sim mount: the object whatever its path, as a
// Lustre client serves it; .lustre itself neither listed nor listable.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>
#include <string>

#include "lustre/fid.h"
#include "sim_fixture.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

std::string Contents(const std::string& path) {
  std::string out;
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return "<" + std::string(strerror(errno)) + ">";
  char buf[256];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

class SimDotLustreTest : public SimMountTest {
 protected:
  std::string ByFid(const lustre::Fid& fid) { return mount() + "/.lustre/fid/" + lustre::FormatFid(fid); }
};

TEST_F(SimDotLustreTest, AnObjectIsReachedByItsFidAfterRenamesAcrossMdtsAndWrites) {
  ASSERT_EQ(Mount(2).exit_code, 0);
  ASSERT_EQ(Lfs({"mkdir", "-i", "1", mount() + "/on1"}).exit_code, 0);
  MakeDirs(mount() + "/a/b");
  WriteFile(mount() + "/a/b/f", "hi");
  const lustre::Fid file = PathFid("a/b/f");
  const lustre::Fid dir = PathFid("a/b");
  ASSERT_EQ(rename((mount() + "/a/b").c_str(), (mount() + "/on1/b").c_str()), 0);
  WriteFile(mount() + "/on1/b/f", "hello there");

  struct stat by_path {}, by_fid {};
  ASSERT_EQ(lstat((mount() + "/on1/b/f").c_str(), &by_path), 0);
  ASSERT_EQ(lstat(ByFid(file).c_str(), &by_fid), 0) << strerror(errno);
  EXPECT_EQ(by_fid.st_ino, by_path.st_ino);
  EXPECT_EQ(by_fid.st_ino, lustre::FlattenFid(file));
  EXPECT_EQ(by_fid.st_size, 11);
  EXPECT_EQ(by_fid.st_mtim.tv_nsec, by_path.st_mtim.tv_nsec);
  EXPECT_EQ(Contents(ByFid(file)), "hello there");
  // Without brackets too; a directory is listed there like at its path.
  const std::string bare = lustre::FormatFid(dir).substr(1, lustre::FormatFid(dir).size() - 2);
  ASSERT_EQ(lstat((mount() + "/.lustre/fid/" + bare).c_str(), &by_fid), 0);
  EXPECT_TRUE(S_ISDIR(by_fid.st_mode));
  EXPECT_EQ(by_fid.st_ino, lustre::FlattenFid(dir));
  DIR* d = opendir(ByFid(dir).c_str());
  ASSERT_NE(d, nullptr) << strerror(errno);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
  }
  closedir(d);
  EXPECT_EQ(names, std::vector<std::string>{"f"});
  // The directory is still at its path (its dentry there is not taken over).
  ASSERT_EQ(lstat((mount() + "/on1/b").c_str(), &by_path), 0);
  EXPECT_EQ(by_path.st_ino, lustre::FlattenFid(dir));
}

TEST_F(SimDotLustreTest, RemovedAndMalformedFidsAreErrorsAndDotLustreIsNotListed) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  WriteFile(mount() + "/f", "x");
  const lustre::Fid file = PathFid("f");
  ASSERT_EQ(unlink((mount() + "/f").c_str()), 0);
  struct stat st {};
  EXPECT_EQ(lstat(ByFid(file).c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(lstat((mount() + "/.lustre/fid/not-a-fid").c_str(), &st), -1);
  EXPECT_EQ(errno, EINVAL);
  ASSERT_EQ(lstat((mount() + "/.lustre/fid").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode, static_cast<mode_t>(S_IFDIR | 0100));
  EXPECT_EQ(opendir((mount() + "/.lustre/fid").c_str()), nullptr);
  EXPECT_EQ(errno, EPERM);
  DIR* root = opendir(mount().c_str());
  ASSERT_NE(root, nullptr);
  while (dirent* e = readdir(root)) EXPECT_NE(std::string(e->d_name), ".lustre");
  closedir(root);
  // The root itself by its FID.
  ASSERT_EQ(lstat(ByFid(lustre::kRootFid).c_str(), &st), 0);
  EXPECT_EQ(st.st_ino, lustre::FlattenFid(lustre::kRootFid));
}

}  // namespace
}  // namespace fathom::testing
