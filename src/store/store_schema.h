// store_schema.h — the on-disk layout of an event store, and opening a file as one.
//
// Layout (schema version 2, PRAGMA user_version; PRAGMA application_id 'FTHM'):
//   chunks(first_id INTEGER PRIMARY KEY, last_id, min_ts, max_ts, data) — events many to a
//     row (store/event_chunk.h): ids first_id..last_id, contiguous across rows from the oldest
//     held to the newest, because retention only ever removes the oldest events.
//   meta(key PRIMARY KEY, value) — 'last_id': the highest id ever assigned, updated in the
//     same transaction as the rows, so ids never repeat even once retention emptied the store;
//     'first_id': the lowest id retention has not removed (the oldest chunk may start below
//     it: those events are no longer held and replay skips them).
//   positions(source PRIMARY KEY, position) — how far each source with a durable log has been
//     stored, written in the transaction of the events it covers.
//   consumers(name PRIMARY KEY, acked_id) — the id each durable consumer has processed through.
// Version 1 (one row per event in `events`) is converted in place by the first writer.
// There is no index on paths: prefix replays decode chunks in id order (millions of events/s)
// and filter.
#pragma once

#include <cstdint>

#include "fathom/status.h"
#include "fathom/store.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

inline constexpr int64_t kSchemaVersion = 2;
inline constexpr int64_t kApplicationId = 0x4654484d;  // "FTHM"
inline constexpr int kBusyTimeoutMs = 10'000;

// The PRAGMA that sets a connection's sync mode: FULL (fsync every commit) or NORMAL.
inline const char* SyncPragma(bool sync_full) {
  return sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
}

// Opens options.path as an event store. A reader (read_only) needs an existing store of a
// schema version this build understands; a writer also creates the file and its schema when
// they are absent, switches to WAL and sets synchronous FULL or NORMAL per sync_full.
// Errors name the file and say what to do (missing store, not a store, newer version, ...).
Result<Connection> OpenStoreConnection(const StoreOptions& options);

}  // namespace fathom::store
