// `fathom watch --backend poll`: changes found by scans come out as JSON lines like any other
// source's; auto chooses it on a FUSE file system (the Lustre emulator's mount); --interval
// belongs to the poll backend and says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::Subprocess;

// The line without its "ts" member, which no test can know.
std::string WithoutTime(std::string line) {
  const size_t ts = line.find("\"ts\":");
  if (ts != std::string::npos) line.erase(ts, line.find(',', ts) + 1 - ts);
  return line;
}

TEST(WatchPoll, ChangesFoundByScansComeOutAsJsonLines) {
  testing::TempDir dir;
  testing::WriteFile(dir / "old", "1");
  Subprocess p({FathomBinary(), "watch", "--backend", "poll", "--interval", "200ms", "-r",
                "--format", "json", dir.path()});
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("poll: scanning " + dir.path() + " every 200 ms"),
            std::string::npos)
      << p.stderr_text();
  testing::MakeDirs(dir / "new");
  testing::Rename(dir / "old", dir / "new/old");
  std::vector<std::string> lines = p.ReadLines(3, 10s);
  ASSERT_EQ(lines.size(), 3u) << p.stderr_text();
  const std::string tail = "\"root\":\"" + dir.path() + "\"";
  // The directory a rename leads into is created first.
  EXPECT_EQ(WithoutTime(lines[0]), "{\"id\":1,\"events\":[\"CREATE\",\"ISDIR\"],\"path\":\"" +
                                       dir.path() + "/new\"," + tail +
                                       ",\"cookie\":0,\"source\":\"poll\"}");
  EXPECT_EQ(WithoutTime(lines[1]), "{\"id\":2,\"events\":[\"MOVED_FROM\"],\"path\":\"" +
                                       dir.path() + "/old\"," + tail +
                                       ",\"cookie\":1,\"source\":\"poll\"}");
  EXPECT_EQ(WithoutTime(lines[2]), "{\"id\":3,\"events\":[\"MOVED_TO\"],\"path\":\"" + dir.path() +
                                       "/new/old\"," + tail + ",\"cookie\":1,\"source\":\"poll\"}");
}

TEST(WatchPoll, AutoChoosesPollOnAFuseMountAndSaysWhy) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount the emulator's FUSE file system";
  testing::TempDir dir;
  const std::string sim = std::string(FATHOM_BUILD_DIR) + "/fathom-lustre-sim";
  testing::MakeDirs(dir / "mnt");
  testing::MakeDirs(dir / "backing");
  auto mounted = testing::Run({sim, "mount", "--fsname", "pollfs", "--state", dir / "state",
                               "--backing", dir / "backing", dir / "mnt"});
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount the emulator here: " << mounted.err;
  {
    Subprocess p(
        {FathomBinary(), "watch", "-r", "--interval", "200ms", "--format", "json", dir / "mnt"});
    ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
    EXPECT_NE(p.stderr_text().find("backend poll chosen"), std::string::npos) << p.stderr_text();
    EXPECT_NE(p.stderr_text().find("poll: scanning " + dir / "mnt" +
                                   " every 200 ms (fuse: no change notification from the kernel)"),
              std::string::npos)
        << p.stderr_text();
    testing::WriteFile(dir / "mnt/f", "x");
    auto line = p.ReadLine(10s);
    ASSERT_TRUE(line.has_value()) << p.stderr_text();
    EXPECT_EQ(WithoutTime(*line), "{\"id\":1,\"events\":[\"CREATE\"],\"path\":\"" + dir / "mnt/f" +
                                      "\",\"root\":\"" + dir / "mnt" +
                                      "\",\"cookie\":0,\"source\":\"poll\"}");
  }
  EXPECT_EQ(testing::Run({sim, "umount", dir / "mnt"}).exit_code, 0);
}

TEST(WatchPoll, IntervalWithANotifyingBackendIsAUsageError) {
  testing::TempDir dir;
  auto r = testing::Run(
      {FathomBinary(), "watch", "--backend", "inotify", "--interval", "5s", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--interval sets how often the poll backend scans: it does not apply to "
                       "--backend inotify"),
            std::string::npos)
      << r.err;
}

TEST(WatchPoll, BadIntervalIsAUsageErrorWithAnExample) {
  testing::TempDir dir;
  auto r = testing::Run(
      {FathomBinary(), "watch", "--backend", "poll", "--interval", "soon", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find("bad poll interval 'soon' (a positive duration such as 30s, 500ms, 2m or 1h)"),
      std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace fathom
