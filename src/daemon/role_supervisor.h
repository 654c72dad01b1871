// role_supervisor.h — runs each configured role as a `fathom` child process and keeps it
// running.
//
// Roles start in configuration order (the aggregator first), each with the configuration's
// directory as its working directory and its stdout appended to its output file when it has
// one; roles get SIGTERM when fathomd dies, however it dies. A role that exits is restarted
// after a backoff that doubles from 1 s to 30 s and resets once it has run for a minute;
// nothing is lost meanwhile, because collectors and subscribers retry and resume from
// positions the aggregator holds. A role that exits with the usage status (2) within its
// first seconds has a configuration error: Run() stops every role and fails naming it.
// Stop() (any thread) sends SIGTERM to every role, waits up to 10 s and then kills what is
// left; Run() returns once all have exited. Reload() (any thread) passes SIGHUP on to the
// aggregate role, which reads its client list again. One Run() per object.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/daemon_config.h"
#include "fathom/status.h"

namespace fathom::daemon {

class RoleSupervisor {
 public:
  RoleSupervisor(DaemonConfig config, std::string fathom_binary);
  Status Run();
  void Stop();
  void Reload();

 private:
  struct Child {
    RoleSpec spec;
    pid_t pid = -1;
    std::chrono::steady_clock::time_point started{};
    std::chrono::steady_clock::time_point restart_at{};
    std::chrono::seconds backoff{1};
    int starts = 0;
  };
  Status Start(Child& child);
  // Reaps exited children; fails on a configuration error.
  Status Reap(std::vector<Child>& children);
  void TerminateAll(std::vector<Child>& children);

  DaemonConfig config_;
  std::string binary_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;    // guarded by mu_
  bool reload_ = false;  // guarded by mu_
};

}  // namespace fathom::daemon
