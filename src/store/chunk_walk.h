// chunk_walk.h — reading every chunk row of a store in id order, damaged or not (for
// `fathom store verify` and `recover`, and a writer's check when it opens a store).
//
// A plain scan of the chunks table stops at the first damaged page of its b-tree. The walk
// instead scans keys (first_id) until a read fails, then looks for the first key it can seek
// to past the damage (doubling steps, then halving back: about 2·log2 of the ids skipped in
// seeks), reads the keys between it and the damage from the right (a descending scan), and
// goes on from there. Each key's row is then read on its own, so a row whose overflow pages
// are damaged costs that row alone. Nothing is checked here beyond what SQLite checks while
// reading (store_check.h checks the rows). One thread, on a connection in a read transaction
// or in autocommit mode.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "fathom/status.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

struct ChunkRow {
  uint64_t first_id = 0;
  uint64_t last_id = 0;
  int64_t min_ts = 0;
  int64_t max_ts = 0;
  std::string data;
  std::optional<uint32_t> crc;  // absent for rows written before checksums were kept
};

// What could not be read: a row whose key is known (`first_id`, and `last_id` when even that
// much of the row could be read), or keys after `first_id` (a failed scan of the table).
struct UnreadableRows {
  uint64_t after_id = 0;                  // the keys after this one (a failed scan), or
  std::optional<uint64_t> first_id;       // this row (a failed read of it)
  std::optional<uint64_t> last_id;
  std::string problem;
};

struct ChunkWalkCallbacks {
  std::function<bool(const ChunkRow&)> row;              // false stops the walk
  std::function<void(const UnreadableRows&)> unreadable;
};

// Walks the chunks table of `db`; `has_crc`: the table has the crc column. Fails only when the
// table cannot be read at all (its schema is unreadable) or a read was interrupted
// (sqlite3_interrupt: the caller's time limit; the error code is std::errc::interrupted);
// every other failure is reported and skipped.
Status WalkChunkRows(const Connection& db, bool has_crc, const ChunkWalkCallbacks& callbacks);

}  // namespace fathom::store
