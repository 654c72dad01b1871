// The fanotify source and file systems mounted inside the watched tree: real tmpfs and proc
// mounts (the tests run as root), before and after the source starts, unmounted at the end.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

// A file system mounted at `at` (made if missing) for the scope of a test.
class Mount {
 public:
  Mount(const std::string& type, const std::string& at) : at_(at) {
    MakeDirs(at);
    mounted_ = mount(type.c_str(), at.c_str(), type.c_str(), 0, nullptr) == 0;
    EXPECT_TRUE(mounted_) << "mount -t " << type << " " << at << ": " << std::strerror(errno);
  }
  ~Mount() {
    if (mounted_) umount2(at_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  // umount(2) without forcing: fails (EBUSY) while anything holds the file system open.
  int Unmount() {
    if (!mounted_) return -1;
    const int rc = umount2(at_.c_str(), 0);
    if (rc == 0) mounted_ = false;
    return rc == 0 ? 0 : errno;
  }

 private:
  std::string at_;
  bool mounted_ = false;
};

// Captures what the sources log, for the duration of a test.
class LogCapture {
 public:
  LogCapture()
      : previous_(spdlog::default_logger()),
        sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink_));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() {
    sink_->flush();
    return text_.str();
  }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

std::vector<std::string> CreatedAndWritten(const std::string& root, const std::vector<std::string>& files) {
  std::vector<std::string> lines;
  for (const auto& f : files) {
    lines.push_back(root + " CREATE /" + f);
    lines.push_back(root + " CLOSE_WRITE /" + f);
  }
  return lines;
}

TEST(FanotifyMounts, FileSystemMountedInsideTheTreeBeforeStartIsWatchedWithItsPaths) {
  TempDir dir;
  Mount tmpfs("tmpfs", dir / "mnt");
  ASSERT_TRUE(tmpfs.mounted());
  MakeDirs(dir / "mnt/sub");
  {
    FanWatcher w({dir.path()});
    ASSERT_TRUE(w.Start().ok());
    EXPECT_EQ(w.source().Stats().watches, 2u);
    ASSERT_TRUE(RunInChild([&] {
      WriteFile(dir / "mnt/a", "");
      WriteFile(dir / "mnt/sub/b", "");
      WriteFile(dir / "top", "");
    }));
    EXPECT_EQ(Lines(w.Collect(6)),
              CreatedAndWritten(dir.path(), {"mnt/a", "mnt/sub/b", "top"}));
    // Watching does not keep the file system busy.
    EXPECT_EQ(tmpfs.Unmount(), 0);
  }
}

TEST(FanotifyMounts, FileSystemMountedInsideTheTreeAfterStartIsWatchedAndReported) {
  TempDir dir;
  MakeDirs(dir / "mnt");
  LogCapture log;
  FanWatcher w({dir.path()});
  ASSERT_TRUE(w.Start().ok());
  const uint64_t before = w.source().Stats().watches;
  Mount tmpfs("tmpfs", dir / "mnt");
  ASSERT_TRUE(tmpfs.mounted());
  // The mount table's change wakes the source, which marks the new file system.
  w.CollectUntil([&](const std::vector<Event>&) { return w.source().Stats().watches == before + 1; });
  ASSERT_EQ(w.source().Stats().watches, before + 1) << log.text();
  EXPECT_NE(log.text().find("fanotify: watching the tmpfs file system (tmpfs) mounted at " + dir / "mnt" +
                            " (mounted after the start)"),
            std::string::npos)
      << log.text();
  ASSERT_TRUE(RunInChild([&] {
    WriteFile(dir / "mnt/c", "");
    MakeDirs(dir / "mnt/d");
    WriteFile(dir / "mnt/d/e", "");
  }));
  EXPECT_EQ(Lines(w.Collect(5)), (std::vector<std::string>{dir.path() + " CREATE /mnt/c", dir.path() + " CLOSE_WRITE /mnt/c",
                                              dir.path() + " CREATE,ISDIR /mnt/d", dir.path() + " CREATE /mnt/d/e",
                                              dir.path() + " CLOSE_WRITE /mnt/d/e"}));
  EXPECT_EQ(tmpfs.Unmount(), 0);
  w.CollectUntil([&](const std::vector<Event>&) { return w.source().Stats().watches == before; });
  EXPECT_EQ(w.source().Stats().watches, before);
  EXPECT_NE(log.text().find("fanotify: " + dir / "mnt" + " was unmounted"), std::string::npos) << log.text();
}

TEST(FanotifyMounts, MountThatCannotBeMarkedIsWarnedAboutByName) {
  TempDir dir;
  Mount proc("proc", dir / "proc");
  ASSERT_TRUE(proc.mounted());
  LogCapture log;
  {
    FanWatcher w({dir.path()});
    ASSERT_TRUE(w.Start().ok());
    EXPECT_EQ(w.source().Stats().watch_failures, 1u);
    EXPECT_NE(log.text().find("fanotify: cannot watch the proc file system (proc) mounted at " + dir / "proc" +
                              ": Operation not supported (it has no file handles); changes below " +
                              dir / "proc" + " are NOT reported"),
              std::string::npos)
        << log.text();
  }
  EXPECT_EQ(proc.Unmount(), 0);
}

}  // namespace
}  // namespace fathom::testing
