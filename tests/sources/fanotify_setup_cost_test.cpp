// Setup cost of the fanotify source: one mark per file system, whatever the tree's size.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

// Resident set size of this process, in KiB (VmRSS from /proc/self/status).
long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// 100 top-level directories of 1,000 directories each.
void MakeWideTree(const std::string& root, int dirs) {
  constexpr int kPerDir = 1000;
  for (int i = 0; i * kPerDir < dirs; ++i) {
    const std::string top = root + "/t" + std::to_string(i);
    ASSERT_EQ(mkdir(top.c_str(), 0755), 0) << top;
    for (int j = 0; j < kPerDir && i * kPerDir + j < dirs; ++j) {
      const std::string d = top + "/d" + std::to_string(j);
      ASSERT_EQ(mkdir(d.c_str(), 0755), 0) << d;
    }
  }
}

// On tmpfs: making and removing 100,000 directories there takes seconds, not minutes.
TEST(FanotifySetupCost, HundredThousandDirectoriesStartInUnderASecondWithOneMark) {
  TempDir dir("/dev/shm");
  constexpr int kDirs = 100000;
  MakeWideTree(dir.path(), kDirs);
  const long rss_before = RssKib();
  FanWatcher w({dir.path()});
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(w.Start().ok());
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  const double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  std::printf("fanotify: Start() on %d directories took %.3f ms; RSS %ld KiB -> %ld KiB\n", kDirs,
              ms, rss_before, RssKib());
  EXPECT_LT(elapsed, std::chrono::seconds(1));
  EXPECT_EQ(w.source().Stats().watches, 1u);
  // Any of them is watched at once: a directory deep in the tree that fathom never saw.
  ASSERT_TRUE(RunInChild([&] { WriteFile(dir / "t99/d999/new", ""); }));
  auto events = w.Collect(2);
  EXPECT_EQ(Lines(events),
            (std::vector<std::string>{dir.path() + " CREATE /t99/d999/new",
                                      dir.path() + " CLOSE_WRITE /t99/d999/new"}));
}

}  // namespace
}  // namespace fathom::testing
