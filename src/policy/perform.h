// perform.h — a policy's actions on a live entry (live_entry.h), and how a started action of
// a killed run is settled from what the file system shows.
//
// Contract: every change is made through the entry's parent descriptor, after checking that
// the name still leads to the object decided upon (same st_dev, st_ino); a move never
// replaces anything at its destination; a copy is written to a temporary name, checked
// (SHA-256 of what was read against what was written, when asked) and renamed into place
// (core/file_copy.h, which the rules' copy action shares).
// Threading: any thread, one entry each.
#pragma once

#include <cstdint>
#include <string>

#include "fathom/policy.h"
#include "policy/live_entry.h"

namespace fathom::policy {

std::string_view ActionName(Action::Kind kind);

// Where a move or a copy puts the entry at `path`: the destination directory followed by the
// whole path (so that it can be put back), with `.N` added when that is taken. "" for the
// other actions.
std::string DestinationOf(const Action& action, const std::string& path);

// Performs `action` on `entry` as journaled in `record` (its destination, its identity).
// Returns what the action reports ("sha256:..." for a copy, "" otherwise).
Result<std::string> Perform(const Action& action, LiveEntry& entry, const JournalAction& record);

// A started action of a killed run: whether it took effect, as the file system shows.
enum class Settled { kDone, kNotDone, kUnknown };
Settled SettleStarted(const JournalAction& record);

}  // namespace fathom::policy
