// chunk_rows.h — writing events into the `chunks` table (see store_schema.h), many to a row.
//
// Shared by appends and by the conversion of older layouts. `insert` must be prepared from
// kInsertChunkSql on `db`; `blob` is a reusable encoding buffer. One thread, inside the
// caller's transaction.
#pragma once

#include <span>
#include <string>

#include "fathom/event.h"
#include "fathom/store.h"
#include "fathom/status.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

inline constexpr const char* kInsertChunkSql =
    "INSERT INTO chunks(first_id, last_id, min_ts, max_ts, data) VALUES(?,?,?,?,?)";

// Inserts `events` (ids assigned and contiguous) as rows: one per chunk of `chunks` (which
// then hold every event, in order), else encoded here into rows of at most kMaxChunkEvents.
Status InsertChunkRows(const Connection& db, Statement& insert, std::span<const Event> events,
                       std::span<const EncodedChunk> chunks, std::string& blob,
                       std::string_view what);

}  // namespace fathom::store
