// action_processes.h — the process groups of the actions a runner started, so that the
// changes their programs make can be told from everyone else's: a command action runs in a
// process group of its own, and fanotify events name the writing process and its group
// (attrs "pid" and "pgid").
//
// An action's group is known from its start until a minute after it ended (the events it
// caused may be read a little later); older ones are forgotten as new ones start.
//
// Ownership: plain values. Threading: every method may be called from any thread (a mutex).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace fathom::rules {

struct ActionCause {
  std::string rule;      // the rule whose action it is
  std::string delivery;  // the delivery it performs
  int depth = 0;         // that delivery's depth
};

class ActionProcesses {
 public:
  // An action's process (and group) `pgid` started at `now_ns`.
  void Started(pid_t pgid, ActionCause cause, int64_t now_ns);
  // ... and ended.
  void Ended(pid_t pgid, int64_t now_ns);
  // The action whose group is `pgid` (or, when the group is not known, whose process is
  // `pid`) at `ts_ns`; nothing when it is no action of this runner.
  std::optional<ActionCause> Find(pid_t pid, pid_t pgid, int64_t ts_ns) const;
  size_t size() const;

 private:
  struct Entry {
    ActionCause cause;
    int64_t started_ns = 0;
    int64_t ended_ns = 0;  // 0: running
  };
  mutable std::mutex mu_;
  std::unordered_map<pid_t, Entry> groups_;
};

}  // namespace fathom::rules
