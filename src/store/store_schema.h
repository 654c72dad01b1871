// store_schema.h — the on-disk layout of an event store, and opening a file as one.
//
// Layout (schema version 1, PRAGMA user_version; PRAGMA application_id 'FTHM'):
//   events(id INTEGER PRIMARY KEY, ts, mask, cookie, root, path, source, attrs) — one row per
//     event; ids are contiguous from the oldest row held to the newest, because retention
//     only ever removes the oldest rows.
//   meta(key PRIMARY KEY, value) — 'last_id': the highest id ever assigned, updated in the
//     same transaction as the rows, so ids never repeat even once retention emptied events.
// There is deliberately no index on path: maintaining it cut appends five- to tenfold
// (BM_AppendBatchWithPathIndex in bench/store_benchmark.cpp), while a replay of a 1% prefix
// gained only about 2x from it. Prefix replays scan by id (millions of rows/s) and filter.
#pragma once

#include <cstdint>

#include "fathom/status.h"
#include "fathom/store.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

inline constexpr int64_t kSchemaVersion = 1;
inline constexpr int64_t kApplicationId = 0x4654484d;  // "FTHM"
inline constexpr int kBusyTimeoutMs = 10'000;

// Opens options.path as an event store. A reader (read_only) needs an existing store of a
// schema version this build understands; a writer also creates the file and its schema when
// they are absent, switches to WAL and sets synchronous FULL or NORMAL per sync_full.
// Errors name the file and say what to do (missing store, not a store, newer version, ...).
Result<Connection> OpenStoreConnection(const StoreOptions& options);

}  // namespace fathom::store
