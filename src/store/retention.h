// retention.h — removing the events a store's bounds (max_events, max_age) no longer allow,
// the oldest first, in bounded steps.
//
// Exact: the retention floor (meta 'first_id') moves to the first id the bounds keep, and the
// chunk rows wholly below it are deleted (a chunk straddling it stays; replay skips the ids
// below the floor). Used by a writer inside its append transaction, by Prune(), and by the
// retention thread (retention_timer.h), each on its own connection: a Retention belongs to one
// connection and is used from one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "fathom/status.h"
#include "fathom/store.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

inline constexpr uint64_t kPruneChunk = 50'000;  // ids removed per transaction at most

class Retention {
 public:
  // Prepares its statements on `db` (a writer connection to an existing store); every call
  // below must be given that same connection.
  static Result<Retention> Prepare(const Connection& db, const StoreOptions& options);

  Retention() = default;
  Retention(Retention&&) = default;
  Retention& operator=(Retention&&) = default;

  // Inside a write transaction the caller opened on the connection, whose newest id is
  // `last_id`: removes at most `max_ids` of the oldest events that max_events no longer allows
  // (and, with `check_age`, those older than max_age). Returns how many ids it removed.
  Result<uint64_t> RemoveExpired(const Connection& db, uint64_t last_id, uint64_t max_ids, bool check_age);

  // Applies the bounds in full, one transaction of at most kPruneChunk ids at a time so that
  // a huge purge never holds the write lock for long. Returns how many ids it removed.
  Result<uint64_t> PruneAll(const Connection& db);

 private:
  // The first id in [from, cap) whose event is not older than max_age (cap if none).
  Result<uint64_t> FirstYoungId(const Connection& db, uint64_t from, uint64_t cap);

  uint64_t max_events_ = 0;
  std::chrono::seconds max_age_{0};
  Statement begin_, commit_, read_last_, read_first_, write_first_, delete_below_, chunks_from_;
};

}  // namespace fathom::store
