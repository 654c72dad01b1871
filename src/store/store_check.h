// store_check.h (internal) — the checks behind fathom/store_check.h, on an open connection:
// SQLite's integrity check (quick or full), the store's id bookkeeping, and every chunk row
// (chunk_walk.h), within an optional time limit.
//
// The limit is kept by a watchdog thread that calls sqlite3_interrupt() on the connection when
// it expires: SQLite's integrity check runs inside one VDBE instruction, which a progress
// handler never interrupts (SQLite 3.40), but sqlite3_interrupt() stops it within
// milliseconds. A check cut short says so (StoreCheck::complete) and reports what it reached.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "fathom/status.h"
#include "fathom/store_check.h"
#include "store/chunk_walk.h"
#include "store/event_chunk.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

using CheckClock = std::chrono::steady_clock;

struct CheckOptions {
  bool quick = false;  // PRAGMA quick_check instead of integrity_check
  // Stop by then (checked before each step, and the integrity check interrupted at it).
  CheckClock::time_point deadline = CheckClock::time_point::max();
  int max_findings = 100;  // integrity-check findings kept at most
  // Called with each sound chunk row as the check reaches it, in id order (a recovery copies
  // them); false stops the check there (StoreCheck::complete false).
  std::function<bool(const ChunkRow&)> sound_row;
};

// Checks the store (schema version 2) open on `db`; `has_crc`: its chunks have the crc column.
StoreCheck CheckStoreConnection(const Connection& db, bool has_crc, const CheckOptions& options);

// Why a chunk row cannot be used (nullopt: it is sound). `summary`, when given, receives what
// the chunk holds.
std::optional<std::string> ChunkRowProblem(const ChunkRow& row, ChunkSummary* summary = nullptr);

// A writer's check of the store open on `db` before it writes (schema version `version`): a
// quick check within `limit`; a damaged store is refused with an error naming `fathom store
// verify` and `recover`, and a check cut short is logged as a warning.
Status CheckBeforeWriting(const Connection& db, int64_t version, bool has_crc,
                          std::chrono::milliseconds limit);

// "event store PATH is damaged, so nothing is appended to it: WHAT; `fathom store verify ...`
// reports all of it, and `fathom store recover ...` ..." — a writer's refusal.
Status DamagedStoreError(const std::string& path, const std::string& what);

// Whether the store open on `db` has the crc column in its chunks table.
Result<bool> HasChecksumColumn(const Connection& db);

}  // namespace fathom::store
