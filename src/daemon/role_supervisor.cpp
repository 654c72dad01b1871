// role_supervisor.cpp — child processes for fathomd's roles (see role_supervisor.h).
#include "daemon/role_supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

namespace fathom::daemon {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kPoll = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::seconds(30);
constexpr auto kHealthyRun = std::chrono::seconds(60);
constexpr auto kUsageWindow = std::chrono::seconds(5);  // a usage exit this early is the config's
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr int kUsageStatus = 2;

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

std::string CommandLine(const std::vector<std::string>& args) {
  std::string out = "fathom";
  for (const auto& a : args) out += " " + a;
  return out;
}

}  // namespace

RoleSupervisor::RoleSupervisor(DaemonConfig config, std::string fathom_binary)
    : config_(std::move(config)), binary_(std::move(fathom_binary)) {}

void RoleSupervisor::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

void RoleSupervisor::Reload() {
  {
    std::lock_guard lock(mu_);
    reload_ = true;
  }
  cv_.notify_all();
}

Status RoleSupervisor::Start(Child& child) {
  // Everything the child needs is prepared before fork(): between fork() and exec() it only
  // makes async-signal-safe calls.
  const std::string output =
      child.spec.output.empty() ? std::string() : (std::filesystem::path(config_.directory) / child.spec.output).string();
  std::vector<char*> argv;
  argv.push_back(binary_.data());
  for (auto& a : child.spec.args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return Status::Error("cannot start " + child.spec.label + ": fork: " + std::strerror(errno));
  if (pid == 0) {
    // A role never outlives fathomd, even a fathomd killed with SIGKILL.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // fathomd blocks the stop signals; roles must not
    const int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, STDIN_FILENO);
    if (!output.empty()) {
      const int out = open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0640);
      if (out < 0) _exit(126);
      dup2(out, STDOUT_FILENO);
    }
    if (chdir(config_.directory.c_str()) != 0) _exit(126);
    execv(binary_.c_str(), argv.data());
    _exit(127);
  }
  child.pid = pid;
  child.started = Clock::now();
  ++child.starts;
  spdlog::info("{} started (pid {}): {}", child.spec.label, pid, CommandLine(child.spec.args));
  return Status::Ok();
}

Status RoleSupervisor::Reap(std::vector<Child>& children) {
  for (auto& child : children) {
    if (child.pid < 0) continue;
    int status = 0;
    const pid_t r = waitpid(child.pid, &status, WNOHANG);
    if (r != child.pid) continue;
    child.pid = -1;
    const auto ran = Clock::now() - child.started;
    if (WIFEXITED(status) && WEXITSTATUS(status) == kUsageStatus && ran < kUsageWindow) {
      return Status::Error(child.spec.label + " (configured at line " + std::to_string(child.spec.line) +
                           ") refused its options: " + CommandLine(child.spec.args) +
                           " — see its message above and fix the configuration");
    }
    if (ran >= kHealthyRun) child.backoff = std::chrono::seconds(1);
    child.restart_at = Clock::now() + child.backoff;
    spdlog::warn("{} {} after {:.1f} s; restarting in {} s", child.spec.label, Describe(status),
                 std::chrono::duration<double>(ran).count(), child.backoff.count());
    child.backoff = std::min(child.backoff * 2, std::chrono::seconds(kMaxBackoff));
  }
  return Status::Ok();
}

void RoleSupervisor::TerminateAll(std::vector<Child>& children) {
  for (auto& child : children) {
    if (child.pid > 0) kill(child.pid, SIGTERM);
  }
  const auto deadline = Clock::now() + kStopGrace;
  for (auto& child : children) {
    while (child.pid > 0) {
      int status = 0;
      const pid_t r = waitpid(child.pid, &status, WNOHANG);
      if (r == child.pid || (r < 0 && errno == ECHILD)) {
        spdlog::info("{} stopped", child.spec.label);
        child.pid = -1;
      } else if (Clock::now() >= deadline) {
        spdlog::warn("{} did not stop within {} s; killing it", child.spec.label, kStopGrace.count());
        kill(child.pid, SIGKILL);
        waitpid(child.pid, &status, 0);
        child.pid = -1;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
}

Status RoleSupervisor::Run() {
  std::vector<Child> children;
  for (const auto& spec : config_.roles) children.push_back(Child{spec});
  Status status;
  for (;;) {
    bool reload = false;
    {
      std::unique_lock lock(mu_);
      if (stop_) break;
      reload = std::exchange(reload_, false);
    }
    for (const auto& child : children) {
      if (!reload || child.pid <= 0 || child.spec.args.empty() || child.spec.args.front() != "aggregate") continue;
      spdlog::info("SIGHUP: passed on to {} (pid {})", child.spec.label, child.pid);
      kill(child.pid, SIGHUP);
    }
    status = Reap(children);
    if (!status.ok()) break;
    for (auto& child : children) {
      if (child.pid < 0 && Clock::now() >= child.restart_at) {
        status = Start(child);
        if (!status.ok()) break;
      }
    }
    if (!status.ok()) break;
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, kPoll, [this] { return stop_ || reload_; });
  }
  TerminateAll(children);
  return status;
}

}  // namespace fathom::daemon
