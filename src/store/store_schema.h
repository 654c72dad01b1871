// store_schema.h — the on-disk layout of an event store, and opening a file as one.
//
// Layout (schema version 2, PRAGMA user_version; PRAGMA application_id 'FTHM'):
//   chunks(first_id INTEGER PRIMARY KEY, last_id, min_ts, max_ts, data, crc) — events many to
//     a row (store/event_chunk.h): ids first_id..last_id, contiguous across rows from the
//     oldest held to the newest, because retention only ever removes the oldest events (a
//     recovered store alone has gaps, listed in `lost`). crc: the CRC-32C of data
//     (store/checksum.h); NULL in rows written before checksums were kept (added to version 2
//     by the first writer without changing its number; readers of older stores do without).
//   meta(key PRIMARY KEY, value) — 'last_id': the highest id ever assigned, updated in the
//     same transaction as the rows, so ids never repeat even once retention emptied the store;
//     'first_id': the lowest id retention has not removed (the oldest chunk may start below
//     it: those events are no longer held and replay skips them).
//   positions(source PRIMARY KEY, position) — how far each source with a durable log has been
//     stored, written in the transaction of the events it covers.
//   consumers(name PRIMARY KEY, acked_id) — the id each durable consumer has processed through.
//   lost(first_id PRIMARY KEY, last_id) — only in a store written by `fathom store recover`:
//     the id ranges it could not copy out of the damaged store it came from.
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

inline constexpr const char* kCreateLostTable =
    "CREATE TABLE IF NOT EXISTS lost(first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL)";

struct OpenedStore {
  Connection db;
  // A reader that could neither use nor create the -shm file (read-only media, a directory it
  // cannot write) while the WAL held no frames: the main file was opened immutable=1, a
  // snapshot that does not follow later commits (SqliteStore reopens it when the files change).
  bool immutable = false;
  bool has_crc = false;  // the chunks table has the crc column
};

// Opens options.path as an event store. A reader (read_only) needs an existing store of a
// schema version this build understands; it opens it read-only (mode=ro), or immutable when
// the -shm file can be neither used nor created and the WAL holds nothing (store_files.h).
// A writer refuses a file on a read-only file system (EROFS), checks an existing store within
// options.open_check_limit and refuses a damaged one (store_check.h), creates the file and its
// schema when they are absent, switches to WAL and sets synchronous FULL or NORMAL per
// sync_full. Errors name the file and say what to do (missing store, not a store, newer
// version, read-only media, damage, ...).
Result<OpenedStore> OpenStoreConnection(const StoreOptions& options);

}  // namespace fathom::store
