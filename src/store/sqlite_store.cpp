// sqlite_store.cpp — EventStore on SQLite: batched appends under one transaction with events
// many to a row, an id high-water mark that survives retention, exact retention (a floor id
// below which events are gone; whole chunks below it are deleted) in bounded steps, in the
// append's transaction and on a timer (retention.h, retention_timer.h), source positions
// committed with their events, streaming replay that decodes chunks and checks their
// checksums, and a writer whose WAL checkpoints run on a thread of their own
// (wal_checkpointer.h).
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "fathom/store.h"
#include "store/checksum.h"
#include "store/chunk_rows.h"
#include "store/event_chunk.h"
#include "store/retention.h"
#include "store/retention_timer.h"
#include "store/sqlite_handle.h"
#include "store/store_schema.h"
#include "store/wal_checkpointer.h"

namespace fathom {
namespace store {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kAgeCheckInterval = std::chrono::seconds(1);

// Statements a writer runs on every append, prepared once.
struct WriterStatements {
  Statement begin, commit, insert_chunk, read_last, write_last, read_first, write_first,
      delete_below, write_position;
  Retention retention;

  static Result<WriterStatements> Prepare(const Connection& db, const StoreOptions& options) {
    WriterStatements w;
    const std::string_view what = "preparing the append statements";
    FATHOM_ASSIGN_OR_RETURN(w.begin, db.Prepare("BEGIN IMMEDIATE", what));
    FATHOM_ASSIGN_OR_RETURN(w.commit, db.Prepare("COMMIT", what));
    FATHOM_ASSIGN_OR_RETURN(w.insert_chunk, db.Prepare(kInsertChunkSql, what));
    FATHOM_ASSIGN_OR_RETURN(w.read_last,
                            db.Prepare("SELECT value FROM meta WHERE key = 'last_id'", what));
    FATHOM_ASSIGN_OR_RETURN(w.write_last,
                            db.Prepare("UPDATE meta SET value = ?1 WHERE key = 'last_id'", what));
    FATHOM_ASSIGN_OR_RETURN(w.read_first,
                            db.Prepare("SELECT value FROM meta WHERE key = 'first_id'", what));
    FATHOM_ASSIGN_OR_RETURN(w.write_first,
                            db.Prepare("UPDATE meta SET value = ?1 WHERE key = 'first_id'", what));
    FATHOM_ASSIGN_OR_RETURN(w.delete_below,
                            db.Prepare("DELETE FROM chunks WHERE last_id < ?1", what));
    FATHOM_ASSIGN_OR_RETURN(
        w.write_position,
        db.Prepare("INSERT INTO positions(source, position) VALUES(?1, ?2) ON CONFLICT(source) "
                   "DO UPDATE SET position = excluded.position",
                   what));
    FATHOM_ASSIGN_OR_RETURN(w.retention, Retention::Prepare(db, options));
    return w;
  }
};

// The chunks holding ids after ?1: from the one holding ?1 + 1 on (a search of the primary
// key, not a scan of every row's last_id).
constexpr const char* kChunksAfterSql =
    "first_id >= coalesce((SELECT max(first_id) FROM chunks WHERE first_id <= ?1 + 1), 0) "
    "AND last_id > ?1";

// The main file's identity and contents as stat(2) sees them, and whether a WAL is beside it:
// an immutable snapshot is reopened once either changes.
struct FileState {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  bool wal = false;
  friend bool operator==(const FileState&, const FileState&) = default;
};

FileState StateOf(const std::string& path) {
  FileState f;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    f.size = st.st_size;
    f.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  }
  f.wal = stat((path + "-wal").c_str(), &st) == 0;
  return f;
}

// "event store PATH: the chunk of ids A..B is damaged (WHY): ..." with what to do.
Status DamagedChunk(const std::string& path, uint64_t first, uint64_t last, const std::string& why) {
  return Status::Error("event store " + path + ": the chunk of ids " + std::to_string(first) + ".." +
                       std::to_string(last) + " is damaged (" + why + "); `fathom store verify " +
                       path + "` reports all damage, `fathom store recover " + path +
                       " --to NEW` copies every readable event into a new store, and a replay "
                       "after id " + std::to_string(last) + " goes on past it");
}

class SqliteStore final : public EventStore {
 public:
  SqliteStore(StoreOptions options, OpenedStore opened, WriterStatements w,
              std::unique_ptr<WalCheckpointer> checkpointer,
              std::unique_ptr<RetentionTimer> retention_timer)
      : options_(std::move(options)),
        db_(std::move(opened.db)),
        immutable_(opened.immutable),
        has_crc_(opened.has_crc),
        w_(std::move(w)),
        checkpointer_(std::move(checkpointer)),
        retention_timer_(std::move(retention_timer)) {
    if (immutable_) file_state_ = StateOf(options_.path);
  }

  Status Append(std::vector<Event>& batch, const std::optional<SourcePosition>& position) override;
  Status Append(std::vector<Event>& batch, std::span<const SourcePosition> positions) override;
  Result<uint64_t> AppendChunks(std::span<const EncodedChunk> chunks,
                                std::span<const SourcePosition> positions) override;
  Result<uint64_t> Position(std::string_view source) override;
  Status Replay(const ReplayQuery& query, const std::function<bool(const Event&)>& fn) override;
  Status ReplayChunks(uint64_t since_id,
                      const std::function<bool(const StoredChunk&)>& fn) override;
  Result<uint64_t> LastId() override;
  Result<uint64_t> FirstId() override;
  Result<std::vector<IdRange>> LostRanges() override;
  Status Prune() override;
  Status PurgeThrough(uint64_t id) override;
  Status SetConsumerPosition(std::string_view name, uint64_t id) override;
  Result<std::optional<uint64_t>> ConsumerPosition(std::string_view name) override;
  Result<std::vector<std::pair<std::string, uint64_t>>> ConsumerPositions() override;

 private:
  // Runs `step` in one write transaction (rolled back on failure).
  Status InTransaction(std::string_view what, const std::function<Status()>& step);
  Status RequireWriter(std::string_view what) const;
  // Whether the store has its consumers table (a reader may open one made before it existed).
  Result<bool> HasConsumers(std::string_view what) const;
  // An immutable snapshot whose files changed since it was opened (a writer started on the
  // store, or wrote it and stopped) is opened again, as a reader would open it now.
  Status RefreshSnapshot();
  // Why a stored chunk cannot be used, checksum first (nullopt: it can).
  std::optional<std::string> ChecksumProblem(std::string_view data, const Statement& stmt,
                                             int crc_column) const;

  StoreOptions options_;
  Connection db_;
  bool immutable_ = false;
  bool has_crc_ = false;
  FileState file_state_;  // immutable_: the files as they were when opened
  WriterStatements w_;  // empty for a reader
  Clock::time_point next_age_check_{};
  std::unique_ptr<WalCheckpointer> checkpointer_;  // a writer's; unhooks db_ before it closes
  std::unique_ptr<RetentionTimer> retention_timer_;  // a bounded writer's (own connection)
};

Status SqliteStore::RefreshSnapshot() {
  if (!immutable_) return Status::Ok();
  const FileState now = StateOf(options_.path);
  if (now == file_state_) return Status::Ok();
  FATHOM_ASSIGN_OR_RETURN(OpenedStore opened, OpenStoreConnection(options_));
  spdlog::debug("event store {}: its files changed; opened again ({})", options_.path,
                opened.immutable ? "immutable" : "read-only");
  db_ = std::move(opened.db);
  immutable_ = opened.immutable;
  has_crc_ = opened.has_crc;
  file_state_ = now;
  return Status::Ok();
}

std::optional<std::string> SqliteStore::ChecksumProblem(std::string_view data,
                                                        const Statement& stmt,
                                                        int crc_column) const {
  if (!has_crc_ || stmt.ColumnIsNull(crc_column)) return std::nullopt;
  if (Crc32c(data) == static_cast<uint32_t>(stmt.ColumnInt(crc_column))) return std::nullopt;
  return std::string("checksum mismatch: its bytes changed after they were stored");
}

Result<bool> SqliteStore::HasConsumers(std::string_view what) const {
  // A writer makes the table when it opens the store; a store no writer of this version
  // opened yet has none, which a reader takes for no consumers.
  if (!options_.read_only) return true;
  FATHOM_ASSIGN_OR_RETURN(int64_t n, db_.QueryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                                                  "name = 'consumers'", what));
  return n > 0;
}

Status SqliteStore::RequireWriter(std::string_view what) const {
  if (!options_.read_only) return Status::Ok();
  return Status::Error("event store " + options_.path + ": " + std::string(what) +
                       ": the store was opened read-only");
}

Status SqliteStore::InTransaction(std::string_view what, const std::function<Status()>& step) {
  FATHOM_RETURN_IF_ERROR(RequireWriter(what));
  Status status = db_.StepDone(w_.begin, "locking the store for writing");
  if (status.ok()) status = step();
  if (status.ok()) status = db_.StepDone(w_.commit, what);
  if (!status.ok()) db_.RollbackIfOpen();
  return status;
}

Status SqliteStore::Append(std::vector<Event>& batch,
                           const std::optional<SourcePosition>& position) {
  if (!position) return Append(batch, std::span<const SourcePosition>());
  return Append(batch, std::span<const SourcePosition>(&*position, 1));
}

Status SqliteStore::Append(std::vector<Event>& batch, std::span<const SourcePosition> positions) {
  std::vector<EncodedChunk> chunks;
  const std::span<const Event> events(batch);
  for (size_t begin = 0; begin < events.size(); begin += kMaxChunkEvents) {
    chunks.push_back(MakeChunk(events.subspan(begin, std::min(kMaxChunkEvents, events.size() - begin))));
  }
  FATHOM_ASSIGN_OR_RETURN(uint64_t id, AppendChunks(chunks, positions));
  for (auto& e : batch) e.id = id++;
  return Status::Ok();
}

Result<uint64_t> SqliteStore::AppendChunks(std::span<const EncodedChunk> chunks,
                                           std::span<const SourcePosition> positions) {
  FATHOM_RETURN_IF_ERROR(RequireWriter("appending events"));
  const auto now = Clock::now();
  const bool check_age = options_.max_age.count() > 0 && now >= next_age_check_;
  uint64_t first = 0;
  auto run = [&]() -> Status {
    FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.begin, "locking the store for writing"));
    FATHOM_ASSIGN_OR_RETURN(int64_t last, db_.QueryInt(w_.read_last, "reading the last id"));
    first = static_cast<uint64_t>(last) + 1;
    FATHOM_RETURN_IF_ERROR(InsertChunkRows(db_, w_.insert_chunk, first, chunks, "inserting events"));
    uint64_t id = first - 1;
    for (const auto& c : chunks) id += c.count;
    w_.write_last.BindInt(1, static_cast<int64_t>(id));
    FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.write_last, "recording the last id"));
    for (const auto& position : positions) {
      w_.write_position.BindText(1, position.source);
      w_.write_position.BindInt(2, static_cast<int64_t>(position.position));
      FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.write_position, "recording the source position"));
    }
    if (options_.max_events > 0 || check_age) {
      FATHOM_ASSIGN_OR_RETURN(uint64_t removed,
                              w_.retention.RemoveExpired(db_, id, kPruneChunk, check_age));
      if (removed > 0)
        spdlog::debug("event store {}: removed {} expired events", options_.path, removed);
    }
    return db_.StepDone(w_.commit, "committing events");
  };
  if (chunks.empty() && positions.empty()) {
    FATHOM_ASSIGN_OR_RETURN(uint64_t last, LastId());
    return last + 1;
  }
  Status status = run();
  if (!status.ok()) {
    db_.RollbackIfOpen();
    return status;
  }
  if (check_age) next_age_check_ = now + kAgeCheckInterval;
  return first;
}

Status SqliteStore::Prune() {
  FATHOM_RETURN_IF_ERROR(RequireWriter("removing expired events"));
  return w_.retention.PruneAll(db_).status();
}

Status SqliteStore::PurgeThrough(uint64_t id) {
  const std::string what = "purging events through id " + std::to_string(id);
  for (;;) {
    bool done = false;
    FATHOM_RETURN_IF_ERROR(InTransaction(what, [&]() -> Status {
      FATHOM_ASSIGN_OR_RETURN(int64_t last, db_.QueryInt(w_.read_last, "reading the last id"));
      if (id > static_cast<uint64_t>(last)) {
        return Status::Error("event store " + options_.path + ": cannot purge through id " +
                             std::to_string(id) + ": the newest id is " + std::to_string(last));
      }
      FATHOM_ASSIGN_OR_RETURN(int64_t first, db_.QueryInt(w_.read_first, "finding the oldest event", 1));
      const uint64_t oldest = static_cast<uint64_t>(first);
      const uint64_t stop = std::min(id + 1, oldest + kPruneChunk);  // exclusive
      done = stop >= id + 1;
      if (stop <= oldest) return Status::Ok();
      w_.write_first.BindInt(1, static_cast<int64_t>(stop));
      FATHOM_RETURN_IF_ERROR(db_.StepDone(w_.write_first, what));
      w_.delete_below.BindInt(1, static_cast<int64_t>(stop));
      return db_.StepDone(w_.delete_below, what);
    }));
    if (done) return Status::Ok();
  }
}

Status SqliteStore::SetConsumerPosition(std::string_view name, uint64_t id) {
  return InTransaction("recording consumer " + std::string(name) + "'s position", [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(
        Statement stmt,
        db_.Prepare("INSERT INTO consumers(name, acked_id) VALUES(?1, ?2) ON CONFLICT(name) DO "
                    "UPDATE SET acked_id = max(acked_id, excluded.acked_id)",
                    "recording a consumer position"));
    stmt.BindText(1, name);
    stmt.BindInt(2, static_cast<int64_t>(id));
    return db_.StepDone(stmt, "recording a consumer position");
  });
}

Result<std::optional<uint64_t>> SqliteStore::ConsumerPosition(std::string_view name) {
  FATHOM_ASSIGN_OR_RETURN(bool kept, HasConsumers("reading a consumer position"));
  if (!kept) return std::optional<uint64_t>();
  FATHOM_ASSIGN_OR_RETURN(
      Statement stmt,
      db_.Prepare("SELECT acked_id FROM consumers WHERE name = ?1", "reading a consumer position"));
  stmt.BindText(1, name);
  int rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return std::optional<uint64_t>(static_cast<uint64_t>(stmt.ColumnInt(0)));
  if (rc == SQLITE_DONE) return std::optional<uint64_t>();
  return db_.Error(rc, "reading a consumer position");
}

Result<std::vector<std::pair<std::string, uint64_t>>> SqliteStore::ConsumerPositions() {
  FATHOM_ASSIGN_OR_RETURN(bool kept, HasConsumers("reading consumer positions"));
  if (!kept) return std::vector<std::pair<std::string, uint64_t>>();
  FATHOM_ASSIGN_OR_RETURN(Statement stmt,
                          db_.Prepare("SELECT name, acked_id FROM consumers ORDER BY name",
                                      "reading consumer positions"));
  std::vector<std::pair<std::string, uint64_t>> out;
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    std::string name;
    stmt.ColumnText(0, name);
    out.emplace_back(std::move(name), static_cast<uint64_t>(stmt.ColumnInt(1)));
  }
  if (rc != SQLITE_DONE) return db_.Error(rc, "reading consumer positions");
  return out;
}

Status SqliteStore::Replay(const ReplayQuery& query, const std::function<bool(const Event&)>& fn) {
  FATHOM_RETURN_IF_ERROR(RefreshSnapshot());
  std::string prefix = query.path_prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  // One statement, so the retention floor and the chunks come from the same snapshot.
  FATHOM_ASSIGN_OR_RETURN(
      Statement stmt,
      db_.Prepare("SELECT first_id, last_id, data, (SELECT value FROM meta WHERE key = "
                  "'first_id'), " + std::string(has_crc_ ? "crc" : "NULL") +
                  " FROM chunks WHERE " + std::string(kChunksAfterSql) + " ORDER BY first_id",
                  "preparing the replay"));
  stmt.BindInt(1, static_cast<int64_t>(std::min<uint64_t>(query.since_id, INT64_MAX)));
  uint64_t remaining = query.limit == 0 ? UINT64_MAX : query.limit;
  bool more = true;
  while (more) {
    int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return db_.Error(rc, "replaying events");
    const auto first_id = static_cast<uint64_t>(stmt.ColumnInt(0));
    const auto last_id = static_cast<uint64_t>(stmt.ColumnInt(1));
    const std::string_view data = stmt.ColumnBlob(2);
    const uint64_t floor = static_cast<uint64_t>(stmt.ColumnInt(3));
    const uint64_t after = std::max(query.since_id, floor == 0 ? 0 : floor - 1);
    if (auto problem = ChecksumProblem(data, stmt, 4)) {
      return DamagedChunk(options_.path, first_id, last_id, *problem);
    }
    Status decoded = DecodeChunk(data, first_id, [&](const Event& e) {
      if (e.id <= after) return true;
      if (!PathUnder(e.path, prefix)) return true;
      more = fn(e) && --remaining > 0;
      return more;
    });
    if (!decoded.ok()) return DamagedChunk(options_.path, first_id, last_id, decoded.message());
  }
  return Status::Ok();
}

Status SqliteStore::ReplayChunks(uint64_t since_id,
                                 const std::function<bool(const StoredChunk&)>& fn) {
  // One statement, so the retention floor and the chunks come from the same snapshot.
  FATHOM_RETURN_IF_ERROR(RefreshSnapshot());
  FATHOM_ASSIGN_OR_RETURN(
      Statement stmt,
      db_.Prepare("SELECT first_id, last_id, min_ts, max_ts, data, "
                  "(SELECT value FROM meta WHERE key = 'first_id'), " +
                  std::string(has_crc_ ? "crc" : "NULL") + " FROM chunks WHERE " +
                  std::string(kChunksAfterSql) + " ORDER BY first_id",
                  "preparing the replay of chunks"));
  stmt.BindInt(1, static_cast<int64_t>(std::min<uint64_t>(since_id, INT64_MAX)));
  StoredChunk c;
  for (;;) {
    int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return db_.Error(rc, "replaying chunks");
    c.first_id = static_cast<uint64_t>(stmt.ColumnInt(0));
    const auto last_id = static_cast<uint64_t>(stmt.ColumnInt(1));
    if (last_id < c.first_id || last_id - c.first_id >= kMaxChunkEvents) {
      return DamagedChunk(options_.path, c.first_id, last_id, "its row gives it more ids than a chunk holds");
    }
    if (auto problem = ChecksumProblem(stmt.ColumnBlob(4), stmt, 6)) {
      return DamagedChunk(options_.path, c.first_id, last_id, *problem);
    }
    c.chunk.count = static_cast<uint32_t>(last_id - c.first_id + 1);
    c.chunk.min_ts = stmt.ColumnInt(2);
    c.chunk.max_ts = stmt.ColumnInt(3);
    c.chunk.data = std::make_shared<const std::string>(stmt.ColumnBlob(4));
    c.first_held = static_cast<uint64_t>(stmt.ColumnInt(5));
    if (!fn(c)) return Status::Ok();
  }
}

Result<uint64_t> SqliteStore::Position(std::string_view source) {
  FATHOM_ASSIGN_OR_RETURN(
      Statement stmt,
      db_.Prepare("SELECT position FROM positions WHERE source = ?1", "reading a source position"));
  stmt.BindText(1, source);
  int rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return static_cast<uint64_t>(stmt.ColumnInt(0));
  if (rc == SQLITE_DONE) return uint64_t{0};
  return db_.Error(rc, "reading a source position");
}

Result<uint64_t> SqliteStore::LastId() {
  FATHOM_RETURN_IF_ERROR(RefreshSnapshot());
  FATHOM_ASSIGN_OR_RETURN(int64_t last, db_.QueryInt("SELECT value FROM meta WHERE key = 'last_id'",
                                                     "reading the last id"));
  return static_cast<uint64_t>(last);
}

Result<uint64_t> SqliteStore::FirstId() {
  FATHOM_ASSIGN_OR_RETURN(
      int64_t first,
      db_.QueryInt("SELECT CASE WHEN f.value > l.value THEN 0 ELSE f.value END FROM meta f, meta l "
                   "WHERE f.key = 'first_id' AND l.key = 'last_id'",
                   "finding the oldest event"));
  return static_cast<uint64_t>(first);
}

Result<std::vector<IdRange>> SqliteStore::LostRanges() {
  FATHOM_ASSIGN_OR_RETURN(
      int64_t exists,
      db_.QueryInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'lost'",
                   "reading the schema"));
  std::vector<IdRange> ranges;
  if (exists == 0) return ranges;
  FATHOM_ASSIGN_OR_RETURN(Statement stmt,
                          db_.Prepare("SELECT first_id, last_id FROM lost ORDER BY first_id",
                                      "reading the ids lost in a recovery"));
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    ranges.push_back({static_cast<uint64_t>(stmt.ColumnInt(0)),
                      static_cast<uint64_t>(stmt.ColumnInt(1))});
  }
  if (rc != SQLITE_DONE) return db_.Error(rc, "reading the ids lost in a recovery");
  return ranges;
}

}  // namespace
}  // namespace store

Result<std::unique_ptr<EventStore>> EventStore::Open(const StoreOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(store::OpenedStore opened, store::OpenStoreConnection(options));
  store::WriterStatements statements;
  std::unique_ptr<store::WalCheckpointer> checkpointer;
  std::unique_ptr<store::RetentionTimer> retention_timer;
  if (!options.read_only) {
    FATHOM_ASSIGN_OR_RETURN(statements, store::WriterStatements::Prepare(opened.db, options));
    FATHOM_ASSIGN_OR_RETURN(checkpointer, store::WalCheckpointer::Start(
                                              options.path, opened.db.get(), options.sync_full));
    const bool bounded = options.max_events > 0 || options.max_age.count() > 0;
    if (bounded && options.retention_interval.count() > 0) {
      FATHOM_ASSIGN_OR_RETURN(retention_timer, store::RetentionTimer::Start(options));
    }
  }
  return std::unique_ptr<EventStore>(std::make_unique<store::SqliteStore>(
      options, std::move(opened), std::move(statements), std::move(checkpointer),
      std::move(retention_timer)));
}

}  // namespace fathom
