// The fanotify and inotify sources, watching the same directory at once, report the same
// events in the same order for the same workload.
//
// inotify must place a watch on a new directory before anything happens inside it, and
// fanotify merges a new event into a still-queued record about the same object; both report
// a workload exactly only when they keep up with it. So the workload runs in a child process
// on the test's CPU under SCHED_IDLE while the test drains under SCHED_FIFO (tests run as
// root): every step wakes the drainer before the next step runs. Each phase ends with a marker
// directory that both sources must report.
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "sources/source_test_util.h"
#include "sources/inotify/inotify_source.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

class BothSources {
 public:
  explicit BothSources(const std::string& root) : root_(root) {
    SourceOptions options;
    options.roots = {root};
    options.recursive = true;
    auto fan = FanotifySourceInfo().create(options);
    auto ino = InotifySourceInfo().create(options);
    EXPECT_TRUE(fan.ok()) << fan.status().message();
    EXPECT_TRUE(ino.ok()) << ino.status().message();
    if (fan.ok()) fan_ = std::move(fan).value();
    if (ino.ok()) ino_ = std::move(ino).value();
  }
  bool Start() { return fan_ && ino_ && fan_->Start().ok() && ino_->Start().ok(); }

  // Runs `work` and then a mkdir of a marker in a child that only runs while the test is
  // idle; drains both sources until the child is done and both reported the marker.
  void Phase(const std::function<void()>& work) {
    const std::string marker = root_ + "/marker" + std::to_string(++phases_);
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    int cpu = 0;
    while (!CPU_ISSET(cpu, &allowed)) ++cpu;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    sched_param fifo{};
    fifo.sched_priority = 1;
    ASSERT_EQ(sched_setscheduler(0, SCHED_FIFO, &fifo), 0) << "needs CAP_SYS_NICE (root)";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      sched_param idle{};
      int rc = sched_setscheduler(0, SCHED_IDLE, &idle);
      try {
        work();
        if (mkdir(marker.c_str(), 0755) != 0) throw std::runtime_error("mkdir marker");
      } catch (...) {
        _exit(1);
      }
      _exit(rc == 0 ? 0 : 2);
    }
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    int status = -1;
    bool exited = false;
    while (std::chrono::steady_clock::now() < deadline) {
      EXPECT_TRUE(ino_->Wait(5ms).ok());
      EXPECT_TRUE(ino_->Drain(ino_events_).ok());
      EXPECT_TRUE(fan_->Drain(fan_events_).ok());
      if (!exited) exited = waitpid(child, &status, WNOHANG) == child;
      if (exited && Reported(fan_events_, marker) && Reported(ino_events_, marker)) break;
    }
    if (!exited) exited = waitpid(child, &status, 0) == child;
    sched_param normal{};
    EXPECT_EQ(sched_setscheduler(0, SCHED_OTHER, &normal), 0);
    EXPECT_EQ(sched_setaffinity(0, sizeof allowed, &allowed), 0);
    EXPECT_TRUE(exited && WIFEXITED(status) && WEXITSTATUS(status) == 0) << "workload failed";
    EXPECT_TRUE(Reported(fan_events_, marker)) << "fanotify did not report " << marker;
    EXPECT_TRUE(Reported(ino_events_, marker)) << "inotify did not report " << marker;
  }
  std::vector<std::string> Lines() const { return testing::Lines(fan_events_); }
  std::vector<std::string> InoLines() const { return testing::Lines(ino_events_); }

 private:
  static bool Reported(const std::vector<Event>& events, const std::string& path) {
    return !events.empty() && events.back().path == path;
  }

  std::string root_;
  int phases_ = 0;
  std::unique_ptr<Source> fan_;
  std::unique_ptr<Source> ino_;
  std::vector<Event> fan_events_;
  std::vector<Event> ino_events_;
};

TEST(FanotifyMatchesInotify, SameEventsInTheSameOrderForTheSameWorkload) {
  TempDir dir;
  BothSources both(dir.path());
  ASSERT_TRUE(both.Start());
  both.Phase([&] { RunEvaluateOutputScript(dir.path()); });
  both.Phase([&] {
    MakeDirs(dir / "n1/n2/n3");
    WriteFile(dir / "n1/n2/n3/file", "data");
    WriteFile(dir / "n1/top", "x");
  });
  both.Phase([&] {
    Rename(dir / "n1", dir / "m1");
    WriteFile(dir / "m1/n2/after", "y");
    WriteFile(dir / "m1/n2/n3/file", "more data");
    Rename(dir / "m1/top", dir / "m1/n2/top");
  });
  both.Phase([&] {
    if (unlink((dir / "m1/n2/top").c_str()) != 0) throw std::runtime_error("unlink");
    std::filesystem::remove_all(dir / "m1");
  });
  EXPECT_EQ(both.Lines(), both.InoLines());
  // The comparison means something only if the workload was seen.
  EXPECT_GT(both.Lines().size(), 30u);
}

}  // namespace
}  // namespace fathom::testing
