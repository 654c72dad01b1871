// outbox_schema.cpp — the outbox file: its tables and indexes, how it is recognised, and
// opening it for reading or writing.
//
//   deliveries(seq INTEGER PRIMARY KEY (insertion order), id TEXT UNIQUE, rule, rule_version,
//              path BLOB, payload, event_ids ("1,2,3"), last_event, state (0 pending,
//              1 running, 2 waiting, 3 succeeded, 4 dead), attempts, created, age_from (the
//              start of max_age; NULL after a replay until the next lease), next, lease_until,
//              finished, last_result, depth (of the cascade of actions that made it))
//     deliveries_open(seq) WHERE state < 3: Lease walks the unfinished ones in order, however
//       many finished rows the table holds;
//     deliveries_open_path(path, seq) WHERE state < 3: whether a path has an older unfinished one;
//     deliveries_rule(rule, state, seq): List, ReplayAllDead, PurgeDead;
//     deliveries_done(finished) WHERE state = 3: PurgeSucceeded.
//   cursors(consumer TEXT PRIMARY KEY, event_id): how far each consumer recorded.
//   paused_rules(rule TEXT PRIMARY KEY, since, reason): rules whose deliveries wait for
//     `fathom rules resume` (a tripped circuit breaker).
//   disabled_endpoints(rule, url, reason, since; PRIMARY KEY(rule, url)): webhooks that
//     answered HTTP 410 Gone, until `fathom rules enable`.
// Schema 2 added deliveries.depth and paused_rules, schema 3 disabled_endpoints; a writer
// brings an older file up to date one version after the other (kUpgrades).
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include "catalog/sqlite_schema.h"
#include "rules/outbox/outbox_state.h"
#include "store/sqlite_file_open.h"

namespace fathom::rules {
namespace {

constexpr int64_t kEventStoreApplicationId = 1179928653;  // "FTHM" (store_schema.h)

// Schema 3: the endpoints disabled by HTTP 410 Gone.
constexpr const char* kCreateDisabledEndpoints =
    "CREATE TABLE disabled_endpoints(rule TEXT NOT NULL, url TEXT NOT NULL, reason TEXT NOT NULL,"
    " since INTEGER NOT NULL, PRIMARY KEY(rule, url)) WITHOUT ROWID;";

// What brings schema N - 1 to N, at index N - 2.
constexpr const char* kUpgrades[] = {
    "ALTER TABLE deliveries ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE paused_rules(rule TEXT PRIMARY KEY, since INTEGER NOT NULL, reason TEXT NOT NULL) WITHOUT ROWID;",
    kCreateDisabledEndpoints,
};
static_assert(std::size(kUpgrades) == kOutboxSchemaVersion - 1, "one upgrade per schema version after 1");

const std::string kCreateSchema =
    "CREATE TABLE deliveries(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, rule TEXT NOT NULL,"
    " rule_version TEXT NOT NULL, path BLOB NOT NULL, payload TEXT NOT NULL, event_ids TEXT NOT NULL,"
    " last_event INTEGER NOT NULL, state INTEGER NOT NULL, attempts INTEGER NOT NULL,"
    " created INTEGER NOT NULL, age_from INTEGER, next INTEGER NOT NULL, lease_until INTEGER NOT NULL,"
    " finished INTEGER NOT NULL, last_result TEXT NOT NULL, depth INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX deliveries_open ON deliveries(seq) WHERE state < 3;"
    "CREATE INDEX deliveries_open_path ON deliveries(path, seq) WHERE state < 3;"
    "CREATE INDEX deliveries_rule ON deliveries(rule, state, seq);"
    "CREATE INDEX deliveries_done ON deliveries(finished) WHERE state = 3;"
    "CREATE TABLE cursors(consumer TEXT PRIMARY KEY, event_id INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE paused_rules(rule TEXT PRIMARY KEY, since INTEGER NOT NULL, reason TEXT NOT NULL) WITHOUT ROWID;" +
    std::string(kCreateDisabledEndpoints) + "PRAGMA application_id = " +
    std::to_string(kOutboxApplicationId) + ";PRAGMA user_version = " + std::to_string(kOutboxSchemaVersion) + ";";

std::string NotAnOutbox(const std::string& path, const std::string& what) {
  return path + " is not a fathom rules outbox (" + what +
         "): give the outbox file of `fathom rules`, or a new path to create one";
}

// Whether the opened file is an outbox this build reads, or (for a writer) a new, empty file.
Status CheckIdentity(const store::Connection& db, bool read_only) {
  const std::string& path = db.path();
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  if (!app_id.ok()) {
    const int rc = sqlite3_extended_errcode(db.get());
    if ((rc & 0xff) == SQLITE_NOTADB) return Status::Error(NotAnOutbox(path, "not a SQLite database"));
    return app_id.status();
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t objects, db.QueryInt("SELECT count(*) FROM sqlite_schema", "reading the schema"));
  if (app_id.value() != kOutboxApplicationId) {
    if (objects == 0 && app_id.value() == 0) {
      if (!read_only) return Status::Ok();
      return Status::Error("no rules outbox in " + path + " (the file is empty): it is made by the rules' runner");
    }
    std::string what = "a SQLite database of another application";
    if (app_id.value() == kEventStoreApplicationId) what = "it is a fathom event store";
    if (app_id.value() == catalog::kCatalogApplicationId) what = "it is a fathom catalog";
    return Status::Error(NotAnOutbox(path, what));
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("PRAGMA user_version", "reading the schema version"));
  if (version > kOutboxSchemaVersion) {
    return Status::Error("rules outbox " + path + " has schema version " + std::to_string(version) +
                         ", newer than this fathom understands (" + std::to_string(kOutboxSchemaVersion) +
                         "): use a newer fathom");
  }
  if (read_only && version < kOutboxSchemaVersion) {
    return Status::Error("rules outbox " + path + " was written by an older fathom (schema " + std::to_string(version) +
                         "): start `fathom rules run` with it once to bring it up to date");
  }
  if (version < 1) {
    return Status::Error("rules outbox " + path +
                         " has no schema version: it is damaged; move it aside (its deliveries are lost) and "
                         "restart the rules");
  }
  return Status::Ok();
}

// Brings an outbox of an older schema up to date, one version after the other, in the caller's
// transaction.
Status Upgrade(const store::Connection& db) {
  FATHOM_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("PRAGMA user_version", "reading the schema version"));
  for (int64_t next = version + 1; next <= kOutboxSchemaVersion; ++next) {
    const std::string what = "bringing the outbox's tables up to date (schema " + std::to_string(next - 1) + " to " +
                             std::to_string(next) + ")";
    FATHOM_RETURN_IF_ERROR(db.Exec(kUpgrades[next - 2], what));
    FATHOM_RETURN_IF_ERROR(db.Exec(("PRAGMA user_version = " + std::to_string(next)).c_str(), what));
  }
  return Status::Ok();
}

Status PrepareWriter(const store::Connection& db) {
  std::string mode;
  {
    FATHOM_ASSIGN_OR_RETURN(store::Statement wal, db.Prepare("PRAGMA journal_mode=WAL", "switching to WAL mode"));
    const int rc = sqlite3_step(wal.get());
    if (rc != SQLITE_ROW) return db.Error(rc, "switching to WAL mode");
    mode = wal.ColumnText(0);
  }
  if (mode != "wal") {
    return Status::Error("rules outbox " + db.path() + ": cannot use WAL mode there (journal mode stays '" + mode +
                         "'); put the outbox on a local file system");
  }
  // Every commit is on disk when it returns (a recorded delivery, cursor or outcome survives
  // a crash of the machine, not only of the process).
  FATHOM_RETURN_IF_ERROR(
      db.Exec("PRAGMA synchronous=FULL; PRAGMA journal_size_limit=16777216", "setting the writer's pragmas"));
  FATHOM_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE", "locking the outbox to create its tables"));
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  Status created = app_id.ok() ? Status::Ok() : app_id.status();
  if (created.ok() && app_id.value() != kOutboxApplicationId) {
    created = db.Exec(kCreateSchema.c_str(), "creating the outbox's tables");
  } else if (created.ok()) {
    created = Upgrade(db);
  }
  if (created.ok()) created = db.Exec("COMMIT", "committing the outbox's tables");
  if (!created.ok()) db.RollbackIfOpen();
  return created;
}

}  // namespace

const store::SqliteFileKind kOutboxFile = {
    .noun = "rules outbox",
    .no_space = "no space left on the file system holding the rules outbox",
    .no_space_remedy = "free space there, or keep finished deliveries for less time (they are purged by the rules' "
                       "retention)",
    .io_remedy = "check the device and file system holding the outbox",
    .locked = "the outbox stayed locked by another writer past the busy timeout; is a second rules runner "
              "writing to the same file?",
    .damaged = "the file is damaged (corrupt); move it aside and restart the rules (the deliveries it held "
               "are lost; the runner starts from the end of the event stream)",
    .not_a_database = "not a fathom rules outbox (not a SQLite database)",
    .read_only = "the outbox cannot be written (read-only file, directory or file system); check permissions, "
                 "or open it read-only",
    .read_only_fs = "the file system holding the outbox is mounted read-only",
    .read_only_fs_remedy = "`fathom rules status` can still read it",
};

Result<store::Connection> OpenOutboxDb(const std::string& path, bool read_only, int busy_timeout_ms) {
  FATHOM_ASSIGN_OR_RETURN(store::Connection db,
                          store::OpenSqliteFile(path, read_only, busy_timeout_ms, kOutboxFile, "a rules outbox",
                                                "it is made by the rules' runner when it starts"));
  FATHOM_RETURN_IF_ERROR(CheckIdentity(db, read_only));
  if (!read_only) FATHOM_RETURN_IF_ERROR(PrepareWriter(db));
  return db;
}

}  // namespace fathom::rules
