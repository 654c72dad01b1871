#include "store/retention.h"

#include <algorithm>

#include "store/event_chunk.h"

namespace fathom::store {

Result<Retention> Retention::Prepare(const Connection& db, const StoreOptions& options) {
  Retention r;
  r.max_events_ = options.max_events;
  r.max_age_ = options.max_age;
  const std::string_view what = "preparing the retention statements";
  FATHOM_ASSIGN_OR_RETURN(r.begin_, db.Prepare("BEGIN IMMEDIATE", what));
  FATHOM_ASSIGN_OR_RETURN(r.commit_, db.Prepare("COMMIT", what));
  FATHOM_ASSIGN_OR_RETURN(r.read_last_,
                          db.Prepare("SELECT value FROM meta WHERE key = 'last_id'", what));
  FATHOM_ASSIGN_OR_RETURN(r.read_first_,
                          db.Prepare("SELECT value FROM meta WHERE key = 'first_id'", what));
  FATHOM_ASSIGN_OR_RETURN(r.write_first_,
                          db.Prepare("UPDATE meta SET value = ?1 WHERE key = 'first_id'", what));
  FATHOM_ASSIGN_OR_RETURN(r.delete_below_,
                          db.Prepare("DELETE FROM chunks WHERE last_id < ?1", what));
  FATHOM_ASSIGN_OR_RETURN(r.chunks_from_,
                          db.Prepare("SELECT first_id, max_ts, data FROM chunks WHERE last_id "
                                     ">= ?1 AND first_id < ?2 ORDER BY first_id",
                                     what));
  return r;
}

Result<uint64_t> Retention::FirstYoungId(const Connection& db, uint64_t from, uint64_t cap) {
  const int64_t cutoff =
      NowNs() - std::chrono::duration_cast<std::chrono::nanoseconds>(max_age_).count();
  Statement& stmt = chunks_from_;
  stmt.BindInt(1, static_cast<int64_t>(from));
  stmt.BindInt(2, static_cast<int64_t>(cap));
  uint64_t young = cap;
  Status status;
  int rc = SQLITE_DONE;
  while (young == cap && (rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    if (stmt.ColumnInt(1) < cutoff) continue;  // every event of this chunk is expired
    status = DecodeChunk(stmt.ColumnBlob(2), static_cast<uint64_t>(stmt.ColumnInt(0)),
                         [&](const Event& e) {
                           if (e.id < from || e.ts_ns < cutoff) return true;
                           young = std::min(e.id, cap);
                           return false;
                         });
    if (!status.ok()) break;
  }
  if (status.ok() && young == cap && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    status = db.Error(rc, "finding expired events");
  }
  stmt.Reset();
  if (!status.ok()) return status;
  return young;
}

Result<uint64_t> Retention::RemoveExpired(const Connection& db, uint64_t last_id,
                                          uint64_t max_ids, bool check_age) {
  FATHOM_ASSIGN_OR_RETURN(int64_t first,
                          db.QueryInt(read_first_, "finding the oldest event", 1));
  const uint64_t oldest = static_cast<uint64_t>(first);
  if (oldest > last_id) return uint64_t{0};                      // empty
  const uint64_t cap = std::min(oldest + max_ids, last_id + 1);  // never remove this id or above
  uint64_t stop = oldest;                                        // exclusive: remove ids below it
  if (max_events_ > 0 && last_id >= max_events_) {
    stop = std::max(stop, last_id - max_events_ + 1);
  }
  stop = std::min(stop, cap);
  if (check_age && max_age_.count() > 0 && stop < cap) {
    FATHOM_ASSIGN_OR_RETURN(uint64_t young, FirstYoungId(db, stop, cap));
    stop = std::max(stop, young);
  }
  if (stop <= oldest) return uint64_t{0};
  write_first_.BindInt(1, static_cast<int64_t>(stop));
  FATHOM_RETURN_IF_ERROR(db.StepDone(write_first_, "removing expired events"));
  delete_below_.BindInt(1, static_cast<int64_t>(stop));
  FATHOM_RETURN_IF_ERROR(db.StepDone(delete_below_, "removing expired events"));
  return stop - oldest;
}

Result<uint64_t> Retention::PruneAll(const Connection& db) {
  uint64_t total = 0;
  for (;;) {
    uint64_t removed = 0;
    auto run = [&]() -> Status {
      FATHOM_RETURN_IF_ERROR(db.StepDone(begin_, "locking the store for writing"));
      FATHOM_ASSIGN_OR_RETURN(int64_t last, db.QueryInt(read_last_, "reading the last id", 0));
      FATHOM_ASSIGN_OR_RETURN(removed,
                              RemoveExpired(db, static_cast<uint64_t>(last), kPruneChunk, true));
      return db.StepDone(commit_, "committing the removal of expired events");
    };
    Status status = run();
    if (!status.ok()) {
      db.RollbackIfOpen();
      return status;
    }
    total += removed;
    if (removed == 0) return total;
  }
}

}  // namespace fathom::store
