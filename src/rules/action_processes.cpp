// action_processes.cpp — ActionProcesses: a map of process groups, pruned as actions start.
#include "rules/action_processes.h"

#include <iterator>

namespace fathom::rules {
namespace {

constexpr int64_t kKeptAfterEndNs = 60'000'000'000;
// An event is stamped when its source read it, a little after the change: one stamped just
// before the start was recorded is still the action's.
constexpr int64_t kClockSlackNs = 1'000'000'000;

}  // namespace

void ActionProcesses::Started(pid_t pgid, ActionCause cause, int64_t now_ns) {
  std::lock_guard lock(mu_);
  for (auto it = groups_.begin(); it != groups_.end();) {
    const bool stale = it->second.ended_ns != 0 && it->second.ended_ns + kKeptAfterEndNs < now_ns;
    it = stale ? groups_.erase(it) : std::next(it);
  }
  groups_[pgid] = {std::move(cause), now_ns, 0};
}

void ActionProcesses::Ended(pid_t pgid, int64_t now_ns) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(pgid);
  if (it != groups_.end()) it->second.ended_ns = now_ns;
}

std::optional<ActionCause> ActionProcesses::Find(pid_t pid, pid_t pgid, int64_t ts_ns) const {
  std::lock_guard lock(mu_);
  auto it = groups_.find(pgid > 0 ? pgid : pid);
  if (it == groups_.end()) return std::nullopt;
  const Entry& e = it->second;
  if (ts_ns + kClockSlackNs < e.started_ns) return std::nullopt;
  if (e.ended_ns != 0 && ts_ns > e.ended_ns + kKeptAfterEndNs) return std::nullopt;
  return e.cause;
}

size_t ActionProcesses::size() const {
  std::lock_guard lock(mu_);
  return groups_.size();
}

}  // namespace fathom::rules
