// undelete.h — entries a move policy put in a trash, and bringing them back: the journal
// says where each went (JournalAction::destination); the entry there must still be the
// object moved (same st_dev, st_ino). A restore is journaled too (a run of the pseudo-policy
// "undelete"), and the catalog follows it through the event stream like any change.
//
// Threading: one thread at a time (the journal's).
#pragma once

#include <optional>
#include <string>

#include "catalog/report/report_table.h"
#include "fathom/policy.h"

namespace fathom::policy {

// The newest move of the entry whose path (or Lustre FID) was `path_or_fid` whose result is
// still where the move put it, if any.
Result<std::optional<JournalAction>> Trashed(ActionJournal& journal, const std::string& path_or_fid);

// Moves the trashed entry back to its path, or into `to` (a directory: the entry keeps its
// name there; or a new path). Never replaces anything. Returns where it now is.
Result<std::string> Restore(ActionJournal& journal, const std::string& path_or_fid, const std::string& to);

// Adds a "restorable" column to an `undelete --list` table (catalog/report/removed_report.h):
// "trash" where a move put the entry in a trash that still holds it, else "no".
Status AddRestorable(catalog::report::Table& removed, ActionJournal& journal);

}  // namespace fathom::policy
