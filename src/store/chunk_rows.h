// chunk_rows.h — writing encoded chunks into the `chunks` table (see store_schema.h), one row
// each.
//
// Shared by appends and by the conversion of older layouts. `insert` must be prepared from
// kInsertChunkSql on `db`. One thread, inside the caller's transaction.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "fathom/store.h"
#include "fathom/status.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

inline constexpr const char* kInsertChunkSql =
    "INSERT INTO chunks(first_id, last_id, min_ts, max_ts, data, crc) VALUES(?,?,?,?,?,?)";

// Inserts `chunks` as rows with their checksums (store/checksum.h), their events numbered from
// `first_id` on in order. A chunk without events or data is refused before anything is
// written.
Status InsertChunkRows(const Connection& db, Statement& insert, uint64_t first_id,
                       std::span<const EncodedChunk> chunks, std::string_view what);

}  // namespace fathom::store
