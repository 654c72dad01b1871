// detached_run.h — run work in a daemon child and return once it says it is ready.
//
// RunDetached forks; the child starts a new session and calls `work` with a ReadySignal.
// The work calls Ready() once it is serving (the parent then exits 0) or Fail(message)
// (the parent prints the message and exits 1); if the child dies first the parent reports
// that. After Ready() the child's standard streams go to `log_path` (or /dev/null).
// Call before any thread exists.
#pragma once

#include <functional>
#include <string>

namespace fathom::lustre_sim::cli {

class ReadySignal {
 public:
  explicit ReadySignal(int fd, std::string log_path) : fd_(fd), log_path_(std::move(log_path)) {}
  void Ready();
  void Fail(const std::string& message);

 private:
  int fd_;
  std::string log_path_;
};

// Returns the parent's exit code; in the child, returns the work's result.
int RunDetached(const char* command, const std::string& log_path,
                const std::function<int(ReadySignal&)>& work);

}  // namespace fathom::lustre_sim::cli
