// policy_tables.h — what `fathom policy check` and `fathom policy log` print, as report tables
// (catalog/report/report_table.h: text, CSV or JSON).
#pragma once

#include "catalog/report/report_table.h"
#include "fathom/policy.h"

namespace fathom::policy {

// One row per rule (entries to act upon, their volume, entries whose condition is false),
// then the ignored, out-of-scope and untargeted entries.
catalog::report::Table CheckTable(const PolicyCheck& check);

// The journal's actions matching `query`, newest first, at most `limit` (0: all).
Result<catalog::report::Table> ActionTable(ActionJournal& journal, const ActionQuery& query, size_t limit);

// Runs of `policy` ("": all) started at or after `since_ns`, newest first.
Result<catalog::report::Table> RunTable(ActionJournal& journal, const std::string& policy, int64_t since_ns);

// `fathom report --class-info[=CLASS]`: per file class of `config` (or only `only`), its
// members in the catalog: count, space used, volume, smallest, largest and mean size (an
// object with several names counted once). One pass over the catalog.
Result<catalog::report::Table> ClassInfo(catalog::Catalog& catalog, const PolicyConfig& config,
                                         const std::string& only, int64_t now_ns);

// `fathom report --policy-info[=POLICY]`: per policy, its runs, actions done and failed,
// entries skipped, volume acted upon, and its last run, from the journal.
Result<catalog::report::Table> PolicyInfo(ActionJournal& journal, const std::string& only);

}  // namespace fathom::policy
