#include "timed_run.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

extern char** environ;

namespace fathom::bench {

namespace {

// peak-rss, beside the running benchmark (bench/peak_rss.c); "" when absent.
std::string PeakRssProgram() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  std::string path(self, static_cast<size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + "peak-rss";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

}  // namespace

TimedRun RunTimed(const std::vector<std::string>& argv, bool keep_output) {
  TimedRun run;
  static const std::string peak_rss = PeakRssProgram();
  int out_fd = keep_output ? memfd_create("timed-run-stdout", MFD_CLOEXEC) : -1;
  // The program's peak RSS and status, from peak-rss (its descriptor 3).
  int report_fd = peak_rss.empty() ? -1 : memfd_create("timed-run-report", MFD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (out_fd >= 0) posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  else posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (report_fd >= 0) posix_spawn_file_actions_adddup2(&actions, report_fd, 3);
  std::vector<std::string> command;
  if (report_fd >= 0) command = {peak_rss, "3"};
  command.insert(command.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (const auto& a : command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) {
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    run.started = true;
    run.peak_rss_kb = ru.ru_maxrss;
    if (report_fd >= 0) {
      char report[64] = {};
      long maxrss = 0;
      int child_status = -1;
      if (pread(report_fd, report, sizeof report - 1, 0) > 0 &&
          std::sscanf(report, "%ld %d", &maxrss, &child_status) == 2) {
        run.started = child_status != -1;
        run.peak_rss_kb = maxrss;
        status = child_status;
      }
    }
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  if (report_fd >= 0) close(report_fd);
  if (out_fd >= 0) {
    lseek(out_fd, 0, SEEK_SET);
    char buf[1 << 16];
    for (ssize_t n; (n = read(out_fd, buf, sizeof buf)) > 0;) run.out.append(buf, static_cast<size_t>(n));
    close(out_fd);
  }
  return run;
}

TimedRun BestOf(int repeat, const std::vector<std::string>& argv, bool keep_output) {
  TimedRun best;
  std::string out;
  for (int r = 0; r < repeat; ++r) {
    TimedRun run = RunTimed(argv, keep_output);
    if (!run.started) return run;
    out = std::move(run.out);
    if (r == 0 || run.seconds < best.seconds) best = std::move(run);
  }
  best.out = std::move(out);
  return best;
}

bool Installed(const std::string& program) {
  const std::string cmd = "command -v " + program + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0 : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace fathom::bench
