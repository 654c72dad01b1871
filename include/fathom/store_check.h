// store_check.h — checking an event store file for damage, and copying every readable event
// out of a damaged one (`fathom store verify`, `fathom store recover`; docs/store.md).
//
// A check runs SQLite's integrity check, then reads every chunk row in id order, past damaged
// pages of the table, and checks each chunk: its checksum (rows written since checksums were
// kept), that it decodes, and that it holds the ids its row says. Ids the store holds (from
// its retention floor to its newest id) that no sound chunk holds are lost. Neither function
// writes to the store checked; both open it as a reader would (read-only media too).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/status.h"
#include "fathom/store.h"

namespace fathom {

// A chunk row that cannot be used, and why ("checksum mismatch", "does not decode", ...).
struct ChunkDamage {
  IdRange ids;  // as its row says, when that much could be read
  std::string problem;
};

struct StoreCheck {
  std::string path;
  bool complete = true;                // false: stopped at its time limit (what it reached is
                                       // reported; the rest is unchecked)
  bool integrity_done = false;         // SQLite's integrity check ran to its end
  std::vector<std::string> integrity;  // its findings (none: "ok")
  std::vector<ChunkDamage> chunks;     // damaged chunk rows, in id order
  std::vector<std::string> other;      // anything else wrong (its id bookkeeping)
  uint64_t first_id = 0;               // the retention floor and the newest id as the store
  uint64_t last_id = 0;                // records them
  uint64_t chunks_read = 0;            // sound chunk rows
  uint64_t events_read = 0;            // the events they hold (ids >= first_id)
  std::vector<IdRange> lost;           // held ids that no sound chunk holds, merged, ascending
  std::vector<IdRange> lost_before;    // ids an earlier recovery already recorded as lost

  bool sound() const { return integrity.empty() && chunks.empty() && other.empty() && lost.empty(); }
  uint64_t LostEvents() const;
};

// Checks the whole store at `path` (no time limit). Fails only when the file cannot be opened
// as a store at all; damage is in the result.
Result<StoreCheck> VerifyStore(const std::string& path);

struct StoreRecovery {
  StoreCheck check;             // the check of the store recovered from
  uint64_t chunks_copied = 0;
  uint64_t events_copied = 0;
  std::vector<IdRange> lost;    // ids not copied (check.lost with lost_before), ascending
  std::vector<std::string> notes;  // what else could not be copied (positions, consumers)
};

// Copies every readable event of the store at `from` into a new store at `to`, keeping their
// ids, chunk by chunk as stored, with the retention floor, newest id, source positions and
// consumer positions as far as they are readable; the ids lost are recorded in the new store
// (EventStore::LostRanges) and returned. Refuses a `to` that exists; the new store is written
// under a temporary name beside `to` and appears there whole once complete (a failed recovery
// leaves nothing behind).
Result<StoreRecovery> RecoverStore(const std::string& from, const std::string& to);

// "1..4096, 8193..9000" (or "none").
std::string FormatIdRanges(const std::vector<IdRange>& ranges);

// The report `fathom store verify` prints (docs/store.md has an example): what the store holds,
// SQLite's findings, each damaged chunk with its ids and problem, the ids lost, and a verdict
// line ("sound", or "damaged" with the recovery command).
std::string FormatStoreCheck(const StoreCheck& check);

// The lines `fathom store recover` prints after that report: what was copied and what was lost.
std::string FormatStoreRecovery(const StoreRecovery& recovery, const std::string& to);

}  // namespace fathom
