// loop_guards.h — what keeps rules from running away (docs/rules.md, "Loops and storms"):
//   - own events: an event made by one of the runner's actions (its process group, from
//     fanotify's attrs) or on a path of a rule's `outputs` is that rule's own, and that rule
//     ignores it unless it says `own_events: match`;
//   - cascades: a delivery made from an event that an action caused is one deeper than that
//     action's delivery; deeper than `max_cascade` it is recorded dead, with the chain named,
//     so that it is seen and can be replayed, never silently dropped;
//   - a per (rule, path) rate limit: at most `rate_limit.max` deliveries at once, and then
//     one every per/max: later ones are recorded waiting until their turn, run later;
//   - a per-rule circuit breaker: more than `breaker.max` deliveries within `breaker.per`
//     pause the rule (its deliveries are still recorded, none runs until `fathom rules
//     resume`), and the runner raises an alert.
// Windows are counted in the runner's memory: a restarted runner starts them afresh.
//
// Ownership: keeps references to the rule set and the processes, which must outlive it.
// Threading: one thread (the runner's reader).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "condition/glob.h"
#include "fathom/event.h"
#include "rules/action_processes.h"
#include "rules/rule_set.h"

namespace fathom::rules {

// Which action made an event: the rule (its index) and the depth of its delivery. A path of a
// rule's outputs, with no process to tell more, counts as made by a delivery of depth 0.
struct EventCause {
  size_t rule = 0;
  int depth = 0;
  std::string delivery;  // "" when known from the outputs only
};

// The "pid" and "pgid" members of an event's attrs (0 when absent).
struct Writer {
  pid_t pid = 0;
  pid_t pgid = 0;
};
Writer WriterOf(const Event& event);

class LoopGuards {
 public:
  LoopGuards(const RuleSet& set, const ActionProcesses& processes);

  // The action that made `event`, if any of this runner's did.
  std::optional<EventCause> CauseOf(const Event& event) const;
  // Whether rule `rule` leaves `event`, made by `cause`, alone.
  bool Ignores(size_t rule, const EventCause& cause) const;

  struct Admission {
    int64_t not_before_ns = 0;  // later than now: wait for the rate limit's next window
    std::string dead_reason;    // not empty: too deep a cascade
    std::string trip;           // not empty: the rule's breaker tripped just now, and why
  };
  // Whether rule `rule` is paused now (the outbox says); a resumed rule's breaker counts afresh.
  void SetPaused(size_t rule, bool paused);
  // A delivery of rule `rule` about `path`, `depth` deep, recorded at `now_ns`.
  Admission Admit(size_t rule, const std::string& path, int depth, int64_t now_ns);

 private:
  struct Window {
    int64_t start_ns = 0;
    size_t count = 0;
  };
  const RuleSet& set_;
  const ActionProcesses& processes_;
  std::vector<std::vector<condition::Glob>> outputs_;   // per rule
  std::map<std::pair<size_t, std::string>, int64_t> rates_;  // when the next delivery is due, per (rule, path)
  std::vector<Window> breakers_;                        // per rule
  std::vector<bool> tripped_;                           // per rule: paused
};

}  // namespace fathom::rules
