// rules_tables.h — what `fathom rules status`, `deliveries` and `dead` print, as report tables
// (catalog/report/report_table.h: text, CSV or JSON).
#pragma once

#include <string>
#include <vector>

#include "catalog/report/report_table.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"

namespace fathom::rules {

// Per rule of `set` (and any other the outbox has deliveries of): matched deliveries by
// state, retried, the last event, the last result and its webhook when disabled (URL, since
// when, why; rules with a disabled endpoint are listed too); the preamble gives the consumer's
// cursor and, when `newest` is known (non-zero), how far behind the stream it is.
Result<catalog::report::Table> StatusTable(Outbox& outbox, const RuleSet* set, const std::string& consumer,
                                           uint64_t newest);

// The deliveries of `rule` ("" all) in one of `states` (any when empty), newest first, at most
// `limit` (0: all).
Result<catalog::report::Table> DeliveryTable(Outbox& outbox, const std::string& rule,
                                             const std::vector<DeliveryState>& states, size_t limit);

}  // namespace fathom::rules
