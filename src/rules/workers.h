// workers.h — the runner's workers: each leases a ready delivery from the outbox, performs its
// rule's action, and records the outcome; a keeper renews the leases of running deliveries.
// A delivery is taken only while its rule runs fewer than its `concurrency` and, for a
// webhook, its endpoint (scheme://host:port, all rules together) fewer than the rules file's
// `endpoint_concurrency` (or the smallest a rule calling it sets). A webhook answering 410 Gone is disabled in the outbox (it stays so
// across restarts); the deliveries of a disabled webhook end dead without calling it.
//
// Ownership: keeps references to the rule set, the outbox, the options and the counters,
// which must outlive it. Threading: Start() and Stop() from the runner's thread; Wake() from
// any thread.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rules/action_processes.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"
#include "rules/runner.h"

namespace fathom::rules {

class Workers {
 public:
  Workers(const RuleSet& set, Outbox& outbox, const RunnerOptions& options, RunnerCounters& counters,
          ActionProcesses& processes);
  ~Workers();

  void Start(size_t count);
  // New deliveries are recorded: idle workers look now.
  void Wake();
  // Waits for the running actions to end, then joins.
  void Stop();
  // How many deliveries run now.
  size_t running();
  // The rules whose deliveries are not to be taken (paused).
  void SetPaused(std::set<std::string> rules);
  void Pause(const std::string& rule);

 private:
  void Work();
  void KeepLeases();
  void Perform(const Delivery& d);
  // Whether `d` may start now (its rule's and endpoint's limits); if so, counts it as running.
  // Called with mu_ held.
  bool TakeLocked(const Delivery& d);
  void Release(const Delivery& d);
  // A permanent outcome when `rule`'s webhook is disabled in the outbox.
  std::optional<ActionOutcome> Disabled(const Rule& rule);
  int64_t Now() const;

  const RuleSet& set_;
  Outbox& outbox_;
  const RunnerOptions& options_;
  RunnerCounters& counters_;
  ActionProcesses& processes_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;                    // guarded by mu_
  uint64_t wakes_ = 0;                       // guarded by mu_
  std::map<std::string, size_t> per_rule_;   // running deliveries per rule; guarded by mu_
  std::map<std::string, size_t> per_endpoint_;  // running webhook deliveries per endpoint; guarded by mu_
  std::map<std::string, std::string> endpoint_of_;  // rule -> its webhook's endpoint; immutable
  std::map<std::string, size_t> endpoint_limit_;    // endpoint -> its bound; immutable
  std::set<std::string> running_;            // ids of running deliveries; guarded by mu_
  std::set<std::string> paused_;             // rules paused; guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace fathom::rules
