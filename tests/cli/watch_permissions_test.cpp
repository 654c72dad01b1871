// `fathom watch -r` as an unprivileged user over a tree with a directory it may not read: the
// directory is reported and counted, and the rest of the tree is still watched.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::Subprocess;

// argv that runs `fathom ARGS...` as the user nobody.
std::vector<std::string> AsNobody(std::vector<std::string> args) {
  std::vector<std::string> argv{"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                FathomBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// DIR (readable by all) with open/deeper and secret/inner, secret readable by root only.
void MakeTreeWithSecret(const testing::TempDir& dir) {
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  testing::MakeDirs(dir / "open/deeper");
  testing::MakeDirs(dir / "secret/inner");
  ASSERT_EQ(chmod((dir / "secret").c_str(), 0700), 0);  // root's: nobody may not read it
}

TEST(WatchPermissions, AnUnreadableSubdirectoryIsReportedAndTheRestIsWatched) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the watcher as another user";
  testing::TempDir dir;
  MakeTreeWithSecret(dir);

  Subprocess p(AsNobody({"watch", "-r", dir.path(), "--backend", "inotify"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("cannot watch " + dir.path() + "/secret: permission denied"),
            std::string::npos)
      << p.stderr_text();
  testing::WriteFile(dir / "open/deeper/f", "x");
  auto line = p.ReadLine(10s);
  ASSERT_TRUE(line.has_value()) << p.stderr_text();
  EXPECT_EQ(*line, dir.path() + " CREATE /open/deeper/f");
}

TEST(WatchPermissions, AnExcludedUnreadableSubdirectoryIsNotAttempted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the watcher as another user";
  testing::TempDir dir;
  MakeTreeWithSecret(dir);

  Subprocess p(
      AsNobody({"watch", "-r", dir.path(), "--backend", "inotify", "--exclude", "secret"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "open/f", "x");
  auto line = p.ReadLine(10s);
  ASSERT_TRUE(line.has_value()) << p.stderr_text();
  EXPECT_EQ(*line, dir.path() + " CREATE /open/f");
  EXPECT_EQ(p.stderr_text().find("cannot watch"), std::string::npos) << p.stderr_text();
}

}  // namespace
}  // namespace fathom
