// rule_set.h — a rules file (`fathom rules run --config rules.yaml`, docs/rules.md): each rule's
// trigger, how its events are coalesced, its action, its retries and limits; and the settings
// of the runner (outbox, concurrency, endpoint concurrency, catalog).
//
// Loading checks everything that can be checked without running anything: kinds, globs,
// conditions, durations, placeholders, URLs, users, secret files' presence; errors name the
// file, line and column, what was found and what was expected. A rule's version is a hash of
// its canonical form: editing a rule makes new deliveries, reformatting the file does not.
//
// Ownership: plain values. Threading: immutable once loaded, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/policy.h"
#include "fathom/rules.h"
#include "fathom/status.h"
#include "rules/actions/action.h"
#include "rules/coalescer.h"
#include "rules/outbox/outbox.h"

namespace fathom::rules {

// What keeps a rule's actions from running away (docs/rules.md, "Loops and storms").
struct LoopGuard {
  // Globs of the paths the rule's action writes: events there are the rule's own, whatever
  // the source (the only way to tell them with inotify, which does not say who wrote).
  std::vector<std::string> outputs;
  bool ignore_own = true;         // own_events: ignore (default) or match
  size_t rate_max = 0;            // rate_limit: at most this many deliveries per path ...
  int64_t rate_per_ns = 0;        // ... per this long; later ones wait (0: no limit)
  size_t breaker_max = 0;         // breaker: more deliveries than this ...
  int64_t breaker_per_ns = 0;     // ... within this long pause the rule (0: no breaker)
};

struct Rule {
  std::string name;
  std::string version;  // 32 hexadecimal digits of SHA-256 of the rule's canonical YAML
  Trigger trigger;
  Coalescing coalescing;
  Action action;  // a command, a webhook, a copy or a mail (rules/actions/action.h)
  RetryPolicy retry;
  size_t concurrency = 1;  // deliveries of this rule running at once
  // A webhook's: the bound on its endpoint (0: the rules file's). An endpoint called by several
  // rules takes the smallest of their bounds.
  size_t endpoint_concurrency = 0;
  LoopGuard guard;
  // owner: a client of the aggregator's client list (clients:); the rule takes only events
  // on the paths granted to it. "" (no owner): every event the runner reads.
  std::string owner;
  std::vector<std::string> owner_paths;
};

struct RuleSet {
  std::string source;  // the file, for messages
  std::vector<Rule> rules;
  std::string outbox = "fathom-rules.db";  // the delivery journal (outbox:)
  size_t concurrency = 4;                  // deliveries running at once, all rules together
  size_t endpoint_concurrency = 4;         // webhook deliveries to one scheme://host:port at once
  std::string catalog;                     // for `attributes: catalog` (catalog:)
  int64_t lease_ns = 60'000'000'000;       // how long a taken delivery is someone's (lease:)
  std::string clients;                     // the aggregator's client list, for owner: (clients:)
  int max_cascade = 3;                     // actions caused by actions caused by ... at most this deep
  policy::AlertSinks alert_sinks;          // where a tripped breaker is announced (alert_sinks:)

  const Rule* Find(std::string_view name) const;
};

Result<RuleSet> LoadRuleSet(const std::string& path);
// The same from text; `source` names it in errors.
Result<RuleSet> ParseRuleSet(std::string_view yaml, std::string_view source);

}  // namespace fathom::rules
