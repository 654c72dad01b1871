// sqlite_store.cpp — EventStore on SQLite: batched appends under one transaction, an id
// high-water mark that survives retention, retention that removes the oldest rows in bounded
// chunks, and streaming replay straight from a prepared statement.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "fathom/store.h"
#include "store/sqlite_handle.h"
#include "store/store_schema.h"

namespace fathom {
namespace store {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRowsPerInsert = 32;  // rows bound into one multi-row INSERT
constexpr int kColumnsPerRow = 8;
constexpr uint64_t kPruneChunk = 50'000;  // rows removed per transaction at most
constexpr auto kAgeCheckInterval = std::chrono::seconds(1);
constexpr const char* kSelectColumns =
    "SELECT id, ts, mask, cookie, root, path, source, attrs FROM events";

std::string MultiRowInsert(int rows) {
  std::string sql = "INSERT INTO events(id, ts, mask, cookie, root, path, source, attrs) VALUES";
  for (int i = 0; i < rows; ++i) sql += i == 0 ? "(?,?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?,?)";
  return sql;
}

void BindEvent(Statement& stmt, int row, const Event& e) {
  const int base = row * kColumnsPerRow;
  stmt.BindInt(base + 1, static_cast<int64_t>(e.id));
  stmt.BindInt(base + 2, e.ts_ns);
  stmt.BindInt(base + 3, e.mask);
  stmt.BindInt(base + 4, e.cookie);
  stmt.BindText(base + 5, e.root);
  stmt.BindText(base + 6, e.path);
  stmt.BindText(base + 7, e.source);
  stmt.BindText(base + 8, e.attrs);
}

// Overwrites `e` with the current row, reusing its strings' storage.
void ReadEvent(const Statement& stmt, Event& e) {
  e.id = static_cast<uint64_t>(stmt.ColumnInt(0));
  e.ts_ns = stmt.ColumnInt(1);
  e.mask = static_cast<uint32_t>(stmt.ColumnInt(2));
  e.cookie = static_cast<uint32_t>(stmt.ColumnInt(3));
  stmt.ColumnText(4, e.root);
  stmt.ColumnText(5, e.path);
  stmt.ColumnText(6, e.source);
  stmt.ColumnText(7, e.attrs);
}

// Statements a writer runs on every append, prepared once.
struct WriterStatements {
  Statement begin, commit, insert_many, insert_one, read_last, write_last, first_id, delete_below,
      first_young;

  static Result<WriterStatements> Prepare(const Connection& db) {
    WriterStatements w;
    const std::string_view what = "preparing the append statements";
    FATHOM_ASSIGN_OR_RETURN(w.begin, db.Prepare("BEGIN IMMEDIATE", what));
    FATHOM_ASSIGN_OR_RETURN(w.commit, db.Prepare("COMMIT", what));
    FATHOM_ASSIGN_OR_RETURN(w.insert_many, db.Prepare(MultiRowInsert(kRowsPerInsert), what));
    FATHOM_ASSIGN_OR_RETURN(w.insert_one, db.Prepare(MultiRowInsert(1), what));
    FATHOM_ASSIGN_OR_RETURN(w.read_last,
                            db.Prepare("SELECT value FROM meta WHERE key = 'last_id'", what));
    FATHOM_ASSIGN_OR_RETURN(w.write_last,
                            db.Prepare("UPDATE meta SET value = ?1 WHERE key = 'last_id'", what));
    FATHOM_ASSIGN_OR_RETURN(w.first_id, db.Prepare("SELECT min(id) FROM events", what));
    FATHOM_ASSIGN_OR_RETURN(w.delete_below, db.Prepare("DELETE FROM events WHERE id < ?1", what));
    FATHOM_ASSIGN_OR_RETURN(
        w.first_young, db.Prepare("SELECT id FROM events WHERE id >= ?1 AND id < ?2 AND ts >= ?3 "
                                  "ORDER BY id LIMIT 1",
                                  what));
    return w;
  }
};

class SqliteStore final : public EventStore {
 public:
  SqliteStore(StoreOptions options, Connection db, WriterStatements w)
      : options_(std::move(options)), db_(std::move(db)), w_(std::move(w)) {}

  Status Append(std::vector<Event>& batch) override;
  Status Replay(const ReplayQuery& query, const std::function<bool(const Event&)>& fn) override;
  Result<uint64_t> LastId() override;
  Result<uint64_t> FirstId() override;
  Status Prune() override;

 private:
  Status RequireWriter(std::string_view what) const;
  // A single-row query on a prepared writer statement; `fallback` when it yields NULL or no row.
  Result<int64_t> QueryPrepared(Statement& stmt, std::string_view what, int64_t fallback = 0);
  Status InsertRows(std::vector<Event>& batch);
  // Inside an open transaction: removes at most `max_rows` of the oldest rows that the bounds
  // no longer allow (`check_age`: also those older than max_age). Returns how many it removed.
  Result<uint64_t> RemoveExpired(uint64_t last_id, uint64_t max_rows, bool check_age);

  StoreOptions options_;
  Connection db_;
  WriterStatements w_;  // empty for a reader
  Clock::time_point next_age_check_{};
};

Status SqliteStore::RequireWriter(std::string_view what) const {
  if (!options_.read_only) return Status::Ok();
  return Status::Error("event store " + options_.path + ": " + std::string(what) +
                       ": the store was opened read-only");
}

Result<int64_t> SqliteStore::QueryPrepared(Statement& stmt, std::string_view what,
                                           int64_t fallback) {
  int rc = sqlite3_step(stmt.get());
  int64_t value = fallback;
  if (rc == SQLITE_ROW) {
    if (!stmt.ColumnIsNull(0)) value = stmt.ColumnInt(0);
  } else if (rc != SQLITE_DONE) {
    Status error = db_.Error(rc, what);
    stmt.Reset();
    return error;
  }
  stmt.Reset();
  return value;
}

Status SqliteStore::InsertRows(std::vector<Event>& batch) {
  size_t i = 0;
  for (; i + kRowsPerInsert <= batch.size(); i += kRowsPerInsert) {
    for (int row = 0; row < kRowsPerInsert; ++row) BindEvent(w_.insert_many, row, batch[i + row]);
    FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.insert_many, "inserting events"));
  }
  for (; i < batch.size(); ++i) {
    BindEvent(w_.insert_one, 0, batch[i]);
    FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.insert_one, "inserting events"));
  }
  return Status::Ok();
}

Result<uint64_t> SqliteStore::RemoveExpired(uint64_t last_id, uint64_t max_rows, bool check_age) {
  FATHOM_ASSIGN_OR_RETURN(int64_t first, QueryPrepared(w_.first_id, "finding the oldest event"));
  if (first <= 0) return uint64_t{0};
  const uint64_t oldest = static_cast<uint64_t>(first);
  const uint64_t cap = oldest + max_rows;  // exclusive: never remove this id or above
  uint64_t stop = 0;                       // exclusive: remove ids below it
  if (options_.max_events > 0 && last_id >= options_.max_events) {
    stop = last_id - options_.max_events + 1;
  }
  if (check_age && options_.max_age.count() > 0 && std::max(oldest, stop) < cap) {
    const int64_t age_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(options_.max_age).count();
    w_.first_young.BindInt(1, static_cast<int64_t>(std::max(oldest, stop)));
    w_.first_young.BindInt(2, static_cast<int64_t>(cap));
    w_.first_young.BindInt(3, NowNs() - age_ns);
    FATHOM_ASSIGN_OR_RETURN(int64_t young, QueryPrepared(w_.first_young, "finding expired events",
                                                         static_cast<int64_t>(cap)));
    stop = std::max(stop, static_cast<uint64_t>(young));
  }
  stop = std::min(stop, cap);
  if (stop <= oldest) return uint64_t{0};
  w_.delete_below.BindInt(1, static_cast<int64_t>(stop));
  FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.delete_below, "removing expired events"));
  return static_cast<uint64_t>(sqlite3_changes64(db_.get()));
}

Status SqliteStore::Append(std::vector<Event>& batch) {
  FATHOM_RETURN_IF_ERROR(RequireWriter("appending events"));
  if (batch.empty()) return Status::Ok();
  const auto now = Clock::now();
  const bool check_age = options_.max_age.count() > 0 && now >= next_age_check_;
  auto run = [&]() -> Status {
    FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.begin, "locking the store for writing"));
    FATHOM_ASSIGN_OR_RETURN(int64_t last, QueryPrepared(w_.read_last, "reading the last id"));
    uint64_t id = static_cast<uint64_t>(last);
    for (auto& e : batch) e.id = ++id;
    FATHOM_RETURN_IF_ERROR(InsertRows(batch));
    w_.write_last.BindInt(1, static_cast<int64_t>(id));
    FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.write_last, "recording the last id"));
    if (options_.max_events > 0 || check_age) {
      FATHOM_ASSIGN_OR_RETURN(uint64_t removed, RemoveExpired(id, kPruneChunk, check_age));
      if (removed > 0)
        spdlog::debug("event store {}: removed {} expired events", options_.path, removed);
    }
    return db_.StepDone(w_.commit, "committing events");
  };
  Status status = run();
  if (!status.ok()) {
    db_.RollbackIfOpen();
    for (auto& e : batch) e.id = 0;
    return status;
  }
  if (check_age) next_age_check_ = now + kAgeCheckInterval;
  return Status::Ok();
}

Status SqliteStore::Prune() {
  FATHOM_RETURN_IF_ERROR(RequireWriter("removing expired events"));
  // One bounded transaction per chunk, so that a huge purge never holds the lock for long.
  for (;;) {
    uint64_t removed = 0;
    auto run = [&]() -> Status {
      FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.begin, "locking the store for writing"));
      FATHOM_ASSIGN_OR_RETURN(int64_t last, QueryPrepared(w_.read_last, "reading the last id"));
      FATHOM_ASSIGN_OR_RETURN(removed,
                              RemoveExpired(static_cast<uint64_t>(last), kPruneChunk, true));
      return db_.StepDone(w_.commit, "committing the removal of expired events");
    };
    Status status = run();
    if (!status.ok()) {
      db_.RollbackIfOpen();
      return status;
    }
    if (removed == 0) return Status::Ok();
  }
}

Status SqliteStore::Replay(const ReplayQuery& query, const std::function<bool(const Event&)>& fn) {
  std::string prefix = query.path_prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  const bool filtered = !prefix.empty();  // "" and "/" match everything
  // Paths under P sort in [P + "/", P + "0"): '0' is the byte after '/'. P + "0..." or
  // P + ".txt" (siblings) fall outside.
  const std::string under = prefix + "/";
  const std::string past = prefix + "0";
  std::string sql = kSelectColumns;
  sql += " WHERE id > ?1";
  if (filtered) sql += " AND (path = ?2 OR (path >= ?3 AND path < ?4))";
  sql += " ORDER BY id LIMIT ?5";
  FATHOM_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(sql, "preparing the replay"));
  stmt.BindInt(1, static_cast<int64_t>(std::min<uint64_t>(query.since_id, INT64_MAX)));
  if (filtered) {
    stmt.BindText(2, prefix);
    stmt.BindText(3, under);
    stmt.BindText(4, past);
  }
  stmt.BindInt(
      5, query.limit == 0 ? -1 : static_cast<int64_t>(std::min<uint64_t>(query.limit, INT64_MAX)));
  Event e;
  for (;;) {
    int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return db_.Error(rc, "replaying events");
    ReadEvent(stmt, e);
    if (!fn(e)) return Status::Ok();
  }
}

Result<uint64_t> SqliteStore::LastId() {
  FATHOM_ASSIGN_OR_RETURN(int64_t last, db_.QueryInt("SELECT value FROM meta WHERE key = 'last_id'",
                                                     "reading the last id"));
  return static_cast<uint64_t>(last);
}

Result<uint64_t> SqliteStore::FirstId() {
  FATHOM_ASSIGN_OR_RETURN(int64_t first,
                          db_.QueryInt("SELECT min(id) FROM events", "finding the oldest event"));
  return static_cast<uint64_t>(first);
}

}  // namespace
}  // namespace store

Result<std::unique_ptr<EventStore>> EventStore::Open(const StoreOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(store::Connection db, store::OpenStoreConnection(options));
  store::WriterStatements statements;
  if (!options.read_only) {
    FATHOM_ASSIGN_OR_RETURN(statements, store::WriterStatements::Prepare(db));
  }
  return std::unique_ptr<EventStore>(
      std::make_unique<store::SqliteStore>(options, std::move(db), std::move(statements)));
}

}  // namespace fathom
