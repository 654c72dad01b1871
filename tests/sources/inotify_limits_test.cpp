// inotify's resource limits turned into messages that say what to do.
//
// The limits are lowered inside a child process's own user namespace
// (/proc/sys/user/max_inotify_*), which caps only that namespace: the machine's
// fs.inotify.* settings are never changed.
#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

bool WriteProc(const std::string& path, const std::string& value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  close(fd);
  return ok;
}

std::string ReadProc(const std::string& path) {
  std::ifstream in(path);
  std::string v;
  in >> v;
  return v;
}

// Runs `body` in a child process inside a new user namespace whose `limit` file
// (under /proc/sys/user/) holds `value`; returns what `body` returned, or a line starting
// with "SETUP:" saying which step of the set-up failed.
std::string InLimitedNamespace(const std::string& limit, int value,
                               const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return "SETUP: pipe";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string result;
    if (unshare(CLONE_NEWUSER) != 0) {
      result = "SETUP: unshare(CLONE_NEWUSER)";
    } else if (!WriteProc("/proc/self/uid_map", "0 0 1\n")) {
      result = "SETUP: uid_map";
    } else if (!WriteProc("/proc/sys/user/" + limit, std::to_string(value))) {
      result = "SETUP: /proc/sys/user/" + limit;
    } else {
      result = body();
    }
    ssize_t n = write(fds[1], result.data(), result.size());
    _exit(n == static_cast<ssize_t>(result.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

TEST(InotifyLimits, WatchLimitAtStartSaysWhichLimitAndHowToRaiseIt) {
  TempDir dir;
  for (int i = 0; i < 10; ++i) MakeDirs(dir / ("d" + std::to_string(i)));
  const std::string message = InLimitedNamespace("max_inotify_watches", 4, [&] {
    Watcher w({dir.path()});
    Status s = w.Start();
    return s.ok() ? std::string("Start() succeeded") : s.message();
  });
  ASSERT_EQ(message.find("SETUP:"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot add an inotify watch on " + dir.path() + "/d"), std::string::npos)
      << message;
  EXPECT_NE(message.find("fs.inotify.max_user_watches (currently " +
                         ReadProc("/proc/sys/fs/inotify/max_user_watches") + ")"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("sysctl fs.inotify.max_user_watches="), std::string::npos) << message;
  EXPECT_NE(message.find("user.max_inotify_watches"), std::string::npos) << message;
  EXPECT_NE(message.find("--backend fanotify"), std::string::npos) << message;
}

TEST(InotifyLimits, WatchLimitWhileWatchingStillReportsTheEvent) {
  TempDir dir;
  const std::string result = InLimitedNamespace("max_inotify_watches", 2, [&] {
    Watcher w({dir.path()});
    Status s = w.Start();
    if (!s.ok()) return "Start() failed: " + s.message();
    MakeDirs(dir / "a");    // second watch: fits
    MakeDirs(dir / "a/b");  // third: over the limit
    MakeDirs(dir / "c");
    std::string lines;
    for (const auto& l : Lines(w.CollectQuiet())) lines += l + "\n";
    const SourceStats stats = w.source().Stats();
    return lines + "watches=" + std::to_string(stats.watches) +
           " failures=" + std::to_string(stats.watch_failures);
  });
  const std::string root = dir.path();
  EXPECT_EQ(result, root + " CREATE,ISDIR /a\n" + root + " CREATE,ISDIR /a/b\n" + root +
                        " CREATE,ISDIR /c\nwatches=2 failures=2");
}

TEST(InotifyLimits, InstanceLimitSaysWhichLimitAndHowToRaiseIt) {
  TempDir dir;
  const std::string result = InLimitedNamespace("max_inotify_instances", 0, [&] {
    SourceOptions options;
    options.roots = {dir.path()};
    Status detect = InotifySourceInfo().detect(options);
    Watcher w({dir.path()});
    Status start = w.Start();
    return detect.message() + "\n" + start.message();
  });
  ASSERT_EQ(result.find("SETUP:"), std::string::npos) << result;
  const std::string current = "fs.inotify.max_user_instances (currently " +
                              ReadProc("/proc/sys/fs/inotify/max_user_instances") + ")";
  const size_t newline = result.find('\n');
  ASSERT_NE(newline, std::string::npos) << result;
  for (const std::string& m : {result.substr(0, newline), result.substr(newline + 1)}) {
    EXPECT_NE(m.find("cannot create an inotify instance"), std::string::npos) << m;
    EXPECT_NE(m.find(current), std::string::npos) << m;
    EXPECT_NE(m.find("--backend fanotify"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace fathom::testing
