// child_process.cpp — fork/exec with a time limit; the child waited on through a pidfd while
// its stdin is fed without blocking (a child that never reads cannot stall the time limit).
#include "core/child_process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "core/unique_fd.h"

extern char** environ;

namespace fathom {
namespace {

// argv[0] resolved against the PATH in `env` when it has no '/' (execve does no lookup).
std::string Resolved(const std::string& program, const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return program;
  std::string path;
  for (const std::string& e : env) {
    if (e.starts_with("PATH=")) path = e.substr(5);
  }
  for (size_t at = 0; at <= path.size();) {
    size_t end = path.find(':', at);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end == at ? "." : path.substr(at, end - at);
    const std::string candidate = dir + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    at = end + 1;
  }
  return program;
}

[[noreturn]] void ReportAndExit(int fd, int err) {
  (void)!write(fd, &err, sizeof err);
  _exit(127);
}

// Feeds `input` to `fd` (non-blocking) and waits for the child's pidfd until the deadline.
// Returns true when the deadline passed first.
bool FeedAndWait(int pidfd, UniqueFd& in, std::string_view input, int64_t timeout_ns) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
  size_t done = 0;
  if (in.valid() && input.empty()) in.reset();
  for (;;) {
    int wait_ms = 60'000;
    if (timeout_ns > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return true;
      wait_ms = static_cast<int>(std::min<int64_t>(left.count() + 1, wait_ms));
    }
    pollfd p[2] = {{pidfd, POLLIN, 0}, {in.get(), POLLOUT, 0}};
    const int rc = poll(p, in.valid() ? 2 : 1, wait_ms);
    if (rc < 0 && errno != EINTR) return false;
    if (rc <= 0) continue;
    if (p[0].revents != 0) return false;
    if (in.valid() && p[1].revents != 0) {
      // A command that stops reading early is not an error here: its exit status says.
      const ssize_t w = write(in.get(), input.data() + done, input.size() - done);
      if (w > 0) done += static_cast<size_t>(w);
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || done == input.size() || (p[1].revents & POLLERR) != 0) {
        in.reset();
      }
    }
  }
}

}  // namespace

std::string ShownArgv(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

Result<ChildExit> RunChild(const ChildSpec& spec) {
  if (spec.argv.empty()) return Status::Error("an empty command");
  const std::string what = "cannot run " + spec.argv[0];
  const std::string program = spec.replace_env ? Resolved(spec.argv[0], spec.extra_env) : spec.argv[0];
  std::vector<char*> args;
  for (const std::string& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  if (!spec.replace_env) {
    for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  }
  for (const std::string& e : spec.extra_env) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  int failed[2];
  if (pipe2(failed, O_CLOEXEC) != 0) return Status::FromErrno(errno, what);
  UniqueFd failed_read(failed[0]);
  UniqueFd failed_write(failed[1]);
  int in[2] = {-1, -1};
  if (spec.input && pipe2(in, O_CLOEXEC) != 0) return Status::FromErrno(errno, what);
  UniqueFd in_read(in[0]);
  UniqueFd in_write(in[1]);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  UniqueFd null_fd(null);
  const pid_t pid = fork();
  if (pid < 0) return Status::FromErrno(errno, what);
  if (pid == 0) {
    const int fd = failed_write.get();
    if (spec.own_process_group) setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    dup2(spec.input ? in_read.get() : null, STDIN_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);  // nothing but 0, 1 and 2 reaches the program
    if (spec.credentials) {
      const ChildCredentials& c = *spec.credentials;
      if (setgroups(c.groups.size(), c.groups.data()) != 0 || setgid(c.gid) != 0 || setuid(c.uid) != 0) {
        ReportAndExit(fd, errno);
      }
    }
    if (spec.replace_env) {
      execve(program.c_str(), args.data(), env.data());
    } else {
      execvpe(program.c_str(), args.data(), env.data());
    }
    ReportAndExit(fd, errno);
  }
  if (spec.own_process_group) setpgid(pid, pid);  // also here: no window where kill(-pid) misses
  if (spec.on_started) spec.on_started(pid);
  failed_write.reset();
  in_read.reset();
  null_fd.reset();
  ChildExit exit;
  if (read(failed_read.get(), &exit.start_errno, sizeof exit.start_errno) == sizeof exit.start_errno) {
    exit.started = false;
  }
  if (exit.started) {
    if (in_write.valid()) fcntl(in_write.get(), F_SETFL, fcntl(in_write.get(), F_GETFL) | O_NONBLOCK);
    // Writing to a child that exited must not kill this process.
    if (spec.input) signal(SIGPIPE, SIG_IGN);
    UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    if (pidfd.valid() && FeedAndWait(pidfd.get(), in_write, spec.input.value_or(""), spec.timeout_ns)) {
      exit.timed_out = true;
      kill(spec.own_process_group ? -pid : pid, SIGKILL);
    }
  }
  in_write.reset();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  return exit;
}

}  // namespace fathom
