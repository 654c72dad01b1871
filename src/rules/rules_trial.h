// rules_trial.h — `fathom rules test`: the rules tried over stored history, nothing run and
// nothing recorded: what would have fired (each delivery with its id, rule, path and events),
// and with `explain` why each event was or was not taken by each rule.
//
// Threading: the calling thread; `line` receives the output lines in order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fathom/catalog.h"
#include "fathom/store.h"
#include "rules/rule_set.h"

namespace fathom::rules {

struct TrialCounts {
  uint64_t events = 0;
  uint64_t matched = 0;      // (event, rule) pairs that held
  uint64_t deliveries = 0;   // what would have been delivered
};

// Reads the events of `store` after `since`; `catalog` may be null when no rule reads it.
Result<TrialCounts> TryRules(const RuleSet& set, EventStore& store, uint64_t since, bool explain,
                             catalog::Catalog* catalog, const std::function<void(const std::string&)>& line);

}  // namespace fathom::rules
