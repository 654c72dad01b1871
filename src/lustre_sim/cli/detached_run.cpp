#include "lustre_sim/cli/detached_run.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "lustre_sim/cli/commands.h"

namespace fathom::lustre_sim::cli {
namespace {

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void ReadySignal::Ready() {
  if (fd_ < 0) return;
  WriteAll(fd_, "OK");
  close(fd_);
  fd_ = -1;
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int log_fd = log_path_.empty() ? -1 : open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int out_fd = log_fd >= 0 ? log_fd : null_fd;
  dup2(null_fd, STDIN_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(out_fd, STDERR_FILENO);
  if (log_fd >= 0) close(log_fd);
  close(null_fd);
}

void ReadySignal::Fail(const std::string& message) {
  if (fd_ < 0) return;
  WriteAll(fd_, "E" + message);
  close(fd_);
  fd_ = -1;
}

int RunDetached(const char* command, const std::string& log_path,
                const std::function<int(ReadySignal&)>& work) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    PrintError(command, std::string("cannot create a pipe: ") + strerror(errno));
    return kExitFailure;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    PrintError(command, std::string("cannot fork: ") + strerror(errno));
    return kExitFailure;
  }
  if (pid == 0) {
    close(fds[0]);
    setsid();
    if (chdir("/") != 0) _exit(kExitFailure);
    ReadySignal signal(fds[1], log_path);
    int rc = work(signal);
    signal.Fail("the daemon stopped before it was ready");
    _exit(rc);
  }
  close(fds[1]);
  std::string reply;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (reply == "OK") return kExitOk;
  if (!reply.empty() && reply[0] == 'E') {
    PrintError(command, reply.substr(1));
  } else {
    int status = 0;
    waitpid(pid, &status, 0);
    PrintError(command, "the daemon exited before the file system was mounted (status " +
                            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")");
    return kExitFailure;
  }
  waitpid(pid, nullptr, 0);
  return kExitFailure;
}

}  // namespace fathom::lustre_sim::cli
