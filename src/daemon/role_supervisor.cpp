// role_supervisor.cpp — child processes for fathomd's roles (see role_supervisor.h).
#include "daemon/role_supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

extern char** environ;

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

Status RoleSupervisor::Start(Child& child) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!child.spec.output.empty()) {
    const std::string output = std::filesystem::path(config_.directory) / child.spec.output;
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0640);
  }
  posix_spawn_file_actions_addchdir_np(&actions, config_.directory.c_str());
  std::vector<char*> argv;
  argv.push_back(binary_.data());
  for (auto& a : child.spec.args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Roles get the default signal mask and dispositions, not fathomd's blocked signals.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, binary_.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return Status::Error("cannot start " + child.spec.label + " (" + binary_ + "): " + std::strerror(rc));
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
    {
      std::unique_lock lock(mu_);
      if (stop_) break;
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
    cv_.wait_for(lock, kPoll, [this] { return stop_; });
  }
  TerminateAll(children);
  return status;
}

}  // namespace fathom::daemon
