// The copy action on real files: a file copied under the destination with its content, mode
// and times, its SHA-256 the one the sha256sum command computes; a repeated attempt succeeds
// without touching the copy; a destination holding other content is never replaced; a source
// gone, a symbolic link or a directory is permanent; no space left (a small tmpfs) is retried
// and a read-only destination permanent, nothing left behind; a batch copies each file and
// names each one that failed.
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "rules/actions/action.h"
#include "rules/actions/action_test_util.h"
#include "support/fs_ops.h"
#include "support/read_only_mount.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::Delivery;
using testing::ReadAll;

// The first word sha256sum prints for `path`.
std::string Sha256sum(const std::string& path) {
  std::string out;
  FILE* p = popen(("sha256sum '" + path + "'").c_str(), "r");
  char buf[256];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out.substr(0, out.find(' '));
}

class CopyActionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = dir_ / "lab/raw";
    fathom::testing::MakeDirs(src_);
    action_.to = dir_ / "archive/";
  }
  std::string Under(const std::string& path) const { return dir_ / "archive" + path; }
  std::string Write(const std::string& name, const std::string& content) {
    const std::string path = src_ + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  ActionOutcome Copy(const std::vector<std::string>& paths) { return RunCopyAction(action_, Delivery(paths, dir_.path())); }

  fathom::testing::TempDir dir_;
  std::string src_;
  CopyAction action_;
};

TEST_F(CopyActionTest, AFileIsCopiedWithItsContentModeAndTimesAndItsChecksum) {
  std::string content;
  for (int i = 0; i < 300000; ++i) content += static_cast<char>(i * 7 + i / 251);
  const std::string a = Write("run 1.h5", content);
  ASSERT_EQ(chmod(a.c_str(), 0640), 0);
  const timespec times[2] = {{1'700'000'000, 0}, {1'700'000'123, 456}};
  ASSERT_EQ(utimensat(AT_FDCWD, a.c_str(), times, 0), 0);
  ActionOutcome out = Copy({a});
  ASSERT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  const std::string copy = Under(a);
  EXPECT_EQ(out.message, "copied " + a + " to " + copy + " (sha256:" + Sha256sum(a) + ")");
  EXPECT_EQ(ReadAll(copy), content);
  struct stat st {};
  ASSERT_EQ(stat(copy.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1'700'000'123);
  EXPECT_EQ(st.st_mtim.tv_nsec, 456);
  EXPECT_NE(access((copy + ".fathom-copy").c_str(), F_OK), 0) << "no temporary file is left";
}

TEST_F(CopyActionTest, ARepeatedAttemptSucceedsAndLeavesTheCopyAsItWas) {
  const std::string a = Write("a.h5", "first content");
  ASSERT_EQ(Copy({a}).kind, ActionOutcome::kSuccess);
  struct stat before {};
  ASSERT_EQ(stat(Under(a).c_str(), &before), 0);
  ActionOutcome again = Copy({a});
  EXPECT_EQ(again.kind, ActionOutcome::kSuccess) << again.message;
  EXPECT_EQ(again.message, "copied " + a + " to " + Under(a) + " (sha256:" + Sha256sum(a) + ", already there)");
  struct stat after {};
  ASSERT_EQ(stat(Under(a).c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "the copy was not written again";
  EXPECT_NE(access((Under(a) + ".fathom-copy").c_str(), F_OK), 0);
}

TEST_F(CopyActionTest, ADestinationWithOtherContentIsNeverReplaced) {
  const std::string a = Write("a.h5", "the new content");
  fathom::testing::MakeDirs(Under(src_));
  std::ofstream(Under(a)) << "someone else's file";
  ActionOutcome out = Copy({a});
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, Under(a) + " already exists with other content (sha256 " + Sha256sum(Under(a)) +
                             ", the copy of " + a + " has sha256 " + Sha256sum(a) + "): not replaced");
  EXPECT_EQ(ReadAll(Under(a)), "someone else's file");
  EXPECT_NE(access((Under(a) + ".fathom-copy").c_str(), F_OK), 0);
}

TEST_F(CopyActionTest, ASourceGoneALinkOrADirectoryIsPermanent) {
  const std::string gone = src_ + "/gone.h5";
  ActionOutcome out = Copy({gone});
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, gone + " is gone (no such file): nothing to copy");
  const std::string target = Write("target", "x");
  const std::string link = src_ + "/link.h5";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  out = Copy({link});
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, link + " is a symbolic link: copy takes regular files");
  out = Copy({src_});
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, src_ + " is not a regular file: copy takes regular files");
  EXPECT_NE(access(Under(link).c_str(), F_OK), 0);
}

TEST_F(CopyActionTest, ABatchCopiesEachFileOnceAndNamesEachFailure) {
  const std::string a = Write("a.h5", "aaa");
  const std::string b = Write("b.h5", "bbb");
  const std::string c = Write("c.h5", "ccc");
  ASSERT_EQ(Copy({b}).kind, ActionOutcome::kSuccess);
  ActionOutcome out = Copy({a, b, c, a});
  EXPECT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  EXPECT_EQ(out.message, "copied 3 of 3 files to " + action_.to + " (1 already there)");
  for (const std::string& p : {a, b, c}) EXPECT_EQ(ReadAll(Under(p)), ReadAll(p)) << p;
  const std::string d = Write("d.h5", "ddd");
  const std::string gone = src_ + "/gone.h5";
  out = Copy({d, gone, a});
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, "copied 2 of 3 files to " + action_.to + " (1 already there); " + gone +
                             " is gone (no such file): nothing to copy");
  EXPECT_EQ(ReadAll(Under(d)), "ddd") << "the other files are copied all the same";
}

// A tmpfs of `kib` KiB mounted on `dir` for one test, unmounted on destruction (needs root).
class SmallTmpfs {
 public:
  SmallTmpfs(const std::string& dir, int kib) : dir_(dir) {
    fathom::testing::MakeDirs(dir);
    const std::string options = "size=" + std::to_string(kib) + "k";
    mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST_F(CopyActionTest, NoSpaceLeftIsRetriedAndAReadOnlyDestinationIsPermanentNothingLeftBehind) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting needs root";
  const std::string a = Write("big.h5", std::string(1 << 20, 'x'));
  const std::string small = dir_ / "small";
  SmallTmpfs tmpfs(small, 64);
  ASSERT_TRUE(tmpfs.mounted());
  action_.to = small;
  ActionOutcome full = Copy({a});
  EXPECT_EQ(full.kind, ActionOutcome::kRetry);
  EXPECT_EQ(full.message, "cannot write " + small + a + ".fathom-copy: No space left on device");
  EXPECT_NE(access((small + a).c_str(), F_OK), 0);
  EXPECT_NE(access((small + a + ".fathom-copy").c_str(), F_OK), 0);
  const std::string rw = dir_ / "archive-rw";
  fathom::testing::MakeDirs(rw);
  fathom::testing::ReadOnlyMount view(rw, dir_ / "archive-ro");
  ASSERT_EQ(view.error(), 0);
  action_.to = dir_ / "archive-ro";
  ActionOutcome read_only = Copy({a});
  EXPECT_EQ(read_only.kind, ActionOutcome::kPermanent);
  // The first directory to make under the destination: the first component of the source's path.
  const std::string first = dir_.path().substr(0, dir_.path().find('/', 1));
  EXPECT_EQ(read_only.message, "cannot make directory " + dir_ / "archive-ro" + first + ": Read-only file system");
}

TEST_F(CopyActionTest, WithoutAChecksumTheCopyIsStillWhole) {
  action_.verify = false;
  const std::string a = Write("a.h5", "unchecked but whole");
  ActionOutcome out = Copy({a});
  ASSERT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  EXPECT_EQ(ReadAll(Under(a)), "unchecked but whole");
}

}  // namespace
}  // namespace fathom::rules
