// child_process.cpp — a child started as vfork does (clone with CLONE_VM | CLONE_VFORK), with a
// time limit; the child waited on through a pidfd while its stdin is fed without blocking (a
// child that never reads cannot stall the time limit).
#include "core/child_process.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
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
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    at = end + 1;
  }
  return "";
}

// Reads what `out` (non-blocking) has now into `output`; closes it at its end.
void Collect(UniqueFd& out, std::string* output) {
  char buf[65536];
  for (;;) {
    const ssize_t n = read(out.get(), buf, sizeof(buf));
    if (n > 0) {
      output->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EINTR && errno != EAGAIN)) out.reset();
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

// Feeds `input` to `in` (non-blocking), collects `out` into `output`, and waits for the
// child's pidfd until the deadline. Returns true when the deadline passed first.
bool FeedAndWait(int pidfd, UniqueFd& in, std::string_view input, UniqueFd& out,
                 std::string* output, int64_t timeout_ns) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
  size_t done = 0;
  if (in.valid() && input.empty()) in.reset();
  for (;;) {
    int wait_ms = 60'000;
    if (timeout_ns > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return true;
      wait_ms = static_cast<int>(std::min<int64_t>(left.count() + 1, wait_ms));
    }
    // A closed descriptor (-1) is left out by poll.
    pollfd p[3] = {{pidfd, POLLIN, 0}, {in.get(), POLLOUT, 0}, {out.get(), POLLIN, 0}};
    const int rc = poll(p, 3, wait_ms);
    if (rc < 0 && errno != EINTR) return false;
    if (rc <= 0) continue;
    if (out.valid() && p[2].revents != 0) Collect(out, output);
    if (p[0].revents != 0) {
      if (out.valid()) Collect(out, output);  // the rest the child wrote before it ended
      return false;
    }
    if (in.valid() && p[1].revents != 0) {
      // A command that stops reading early is not an error here: its exit status says.
      const ssize_t w = write(in.get(), input.data() + done, input.size() - done);
      if (w > 0) done += static_cast<size_t>(w);
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || done == input.size() ||
          (p[1].revents & POLLERR) != 0) {
        in.reset();
      }
    }
  }
}

// What the child needs between clone and exec, prepared by the parent: the child shares the
// parent's memory (CLONE_VM) while the parent's thread waits (CLONE_VFORK), so it must not
// allocate, lock or touch anything the parent's other threads use.
struct ChildPlan {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int stdin_fd = -1;
  int stdout_fd = -1;  // -1: the parent's stderr
  bool own_process_group = false;
  const ChildCredentials* credentials = nullptr;
  sigset_t mask{};  // the parent's signal mask, the program's
  int err = 0;      // set by the child: the errno that stopped it before its program ran
};

// The child, from clone to exec: only plain system calls. Signals stay blocked (the parent
// blocked them all) until every caught signal is back to its default, so that no handler of
// the parent runs on the child's stack; the change of user is made with the raw system calls,
// which change this task alone (glibc's setuid would signal the parent's threads).
__attribute__((no_sanitize("address", "undefined"))) int ChildMain(void* arg) {
  auto* p = static_cast<ChildPlan*>(arg);
  if (p->own_process_group) setpgid(0, 0);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    if (sig == SIGPIPE || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)) {
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigaction(sig, &dfl, nullptr);
    }
  }
  dup2(p->stdin_fd, STDIN_FILENO);
  dup2(p->stdout_fd >= 0 ? p->stdout_fd : STDERR_FILENO, STDOUT_FILENO);
  syscall(SYS_close_range, 3, ~0U,
          CLOSE_RANGE_CLOEXEC);  // nothing but 0, 1 and 2 reaches the program
  if (const ChildCredentials* c = p->credentials) {
    if (syscall(SYS_setgroups, c->groups.size(), c->groups.data()) != 0 ||
        syscall(SYS_setresgid, c->gid, c->gid, c->gid) != 0 ||
        syscall(SYS_setresuid, c->uid, c->uid, c->uid) != 0) {
      p->err = errno;
      _exit(127);
    }
  }
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &p->mask, nullptr, NSIG / 8);
  execve(p->program, p->argv, p->envp);
  p->err = errno;
  _exit(127);
}

// Starts the child as vfork does: no copy of this process's page tables (a fork of a large,
// threaded process costs milliseconds of page faults and TLB flushes); returns once the
// child's program runs or the child gave up (plan.err).
Result<pid_t> StartChild(ChildPlan& plan, const std::string& what) {
  constexpr size_t kStack = 64 * 1024;
  void* stack =
      mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return Status::FromErrno(errno, what);
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &plan.mask);
  const pid_t pid =
      clone(ChildMain, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  const int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &plan.mask, nullptr);
  munmap(stack, kStack);
  if (pid < 0) return Status::FromErrno(clone_errno, what);
  return pid;
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
  std::vector<std::string> path_env = spec.extra_env;
  if (!spec.replace_env) {
    const char* path = getenv("PATH");
    path_env = {std::string("PATH=") + (path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin")};
  }
  const std::string program = Resolved(spec.argv[0], path_env);
  ChildExit exit;
  if (program.empty()) {
    exit.started = false;
    exit.start_errno = ENOENT;
    return exit;
  }
  std::vector<char*> args;
  for (const std::string& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  if (!spec.replace_env) {
    for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  }
  for (const std::string& e : spec.extra_env) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  int in[2] = {-1, -1};
  if (spec.input && pipe2(in, O_CLOEXEC) != 0) return Status::FromErrno(errno, what);
  UniqueFd in_read(in[0]);
  UniqueFd in_write(in[1]);
  int out[2] = {-1, -1};
  if (spec.output != nullptr && pipe2(out, O_CLOEXEC) != 0) return Status::FromErrno(errno, what);
  UniqueFd out_read(out[0]);
  UniqueFd out_write(out[1]);
  // Read as it comes, never waiting on it: input and the deadline are served meanwhile.
  if (out_read.valid()) fcntl(out_read.get(), F_SETFL, fcntl(out_read.get(), F_GETFL) | O_NONBLOCK);
  UniqueFd null_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  ChildPlan plan;
  plan.program = program.c_str();
  plan.argv = args.data();
  plan.envp = env.data();
  plan.stdin_fd = spec.input ? in_read.get() : null_fd.get();
  plan.stdout_fd = out_write.get();
  plan.own_process_group = spec.own_process_group;
  plan.credentials = spec.credentials ? &*spec.credentials : nullptr;
  FATHOM_ASSIGN_OR_RETURN(const pid_t pid, StartChild(plan, what));
  if (spec.on_started) spec.on_started(pid);
  in_read.reset();
  out_write.reset();
  null_fd.reset();
  if (plan.err != 0) {
    exit.started = false;
    exit.start_errno = plan.err;
  }
  if (exit.started) {
    if (in_write.valid())
      fcntl(in_write.get(), F_SETFL, fcntl(in_write.get(), F_GETFL) | O_NONBLOCK);
    // Writing to a child that exited must not kill this process.
    if (spec.input) signal(SIGPIPE, SIG_IGN);
    UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    if (pidfd.valid() && FeedAndWait(pidfd.get(), in_write, spec.input.value_or(""), out_read,
                                     spec.output, spec.timeout_ns)) {
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
