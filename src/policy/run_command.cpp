// run_command.cpp — fork/exec with a time limit, waited on through a pidfd.
#include "policy/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/unique_fd.h"

extern char** environ;

namespace fathom::policy {
namespace {

std::string Shown(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

Status RunCommand(const std::vector<std::string>& argv, int64_t timeout_ns, const std::vector<std::string>& extra_env,
                  std::optional<std::string_view> input) {
  if (argv.empty()) return Status::Error("an empty command");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  for (const std::string& e : extra_env) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  int failed_exec[2];
  if (pipe2(failed_exec, O_CLOEXEC) != 0) return Status::FromErrno(errno, "cannot run " + argv[0]);
  int in[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) != 0) {
    close(failed_exec[0]);
    close(failed_exec[1]);
    return Status::FromErrno(errno, "cannot run " + argv[0]);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {failed_exec[0], failed_exec[1], in[0], in[1]}) close(fd);
    return Status::FromErrno(errno, "cannot run " + argv[0]);
  }
  if (pid == 0) {
    close(failed_exec[0]);
    if (input) {
      dup2(in[0], STDIN_FILENO);
    } else {
      const int null = open("/dev/null", O_RDONLY);
      dup2(null, STDIN_FILENO);
    }
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execvpe(args[0], args.data(), env.data());
    const int e = errno;
    (void)!write(failed_exec[1], &e, sizeof e);
    _exit(127);
  }
  close(failed_exec[1]);
  close(in[0]);
  if (input) {
    // A command that stops reading early is not an error here: its exit status says.
    signal(SIGPIPE, SIG_IGN);
    for (size_t done = 0; done < input->size();) {
      const ssize_t w = write(in[1], input->data() + done, input->size() - done);
      if (w <= 0 && errno != EINTR) break;
      if (w > 0) done += static_cast<size_t>(w);
    }
  }
  close(in[1]);
  int exec_errno = 0;
  const bool exec_failed = read(failed_exec[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(failed_exec[0]);
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  bool timed_out = false;
  if (!exec_failed && pidfd.get() >= 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        kill(pid, SIGKILL);
        break;
      }
      pollfd p{pidfd.get(), POLLIN, 0};
      const int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, 60'000)));
      if (rc > 0) break;
      if (rc < 0 && errno != EINTR) break;
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) {
    return Status::Error("cannot run " + argv[0] + ": " + std::strerror(exec_errno),
                         std::error_code(exec_errno, std::generic_category()));
  }
  if (timed_out) {
    return Status::Error("command `" + Shown(argv) + "` did not finish within " +
                         std::to_string(timeout_ns / 1'000'000'000) + " s: killed");
  }
  if (WIFSIGNALED(status)) {
    return Status::Error("command `" + Shown(argv) + "` was killed by signal " + std::to_string(WTERMSIG(status)));
  }
  if (WEXITSTATUS(status) != 0) {
    return Status::Error("command `" + Shown(argv) + "` exited with status " + std::to_string(WEXITSTATUS(status)));
  }
  return Status::Ok();
}

}  // namespace fathom::policy
