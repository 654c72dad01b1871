#include "store/store_schema.h"
#include "store/store_migration.h"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace fathom::store {
namespace {

// Durable consumers' acknowledged ids; added to version 2 without changing its number (older
// version 2 stores get it from their first writer; readers never need it).
constexpr const char* kCreateConsumers =
    "CREATE TABLE IF NOT EXISTS consumers(name TEXT PRIMARY KEY, acked_id INTEGER NOT NULL) "
    "WITHOUT ROWID";

constexpr const char* kCreateSchema =
    "CREATE TABLE chunks(first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL,"
    " min_ts INTEGER NOT NULL, max_ts INTEGER NOT NULL, data BLOB NOT NULL);"
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
    "INSERT INTO meta(key, value) VALUES('last_id', 0), ('first_id', 1);"
    "CREATE TABLE positions(source TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;"
    "PRAGMA application_id = 1179928653;"  // kApplicationId
    "PRAGMA user_version = 2;";            // kSchemaVersion

std::string StartHint(const std::string& path) {
  return "start `fathom watch --store " + path + "` first";
}

// The file as it is before SQLite sees it: present, a regular file, not empty.
Status CheckExistingFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Error("no event store at " + path + ": " + StartHint(path));
    return Status::FromErrno(errno, "cannot open event store " + path);
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::Error(path + " is a directory, not a fathom event store: give the store's file");
  }
  if (st.st_size == 0) {
    return Status::Error(path + " is empty, not yet a fathom event store: " + StartHint(path));
  }
  return Status::Ok();
}

// Checks that an opened file is a fathom store (or a new, empty database, for a writer) of a
// schema version this build understands.
Status CheckIdentity(const Connection& db, bool read_only) {
  const std::string& path = db.path();
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  if (!app_id.ok()) {
    int rc = sqlite3_extended_errcode(db.get());
    if ((rc & 0xff) == SQLITE_NOTADB) {
      return Status::Error(path +
                           " is not a fathom event store (not a SQLite database): give the "
                           "file written by `fathom watch --store`");
    }
    if (read_only && ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN)) {
      return Status::Error("cannot read event store " + path +
                               ": while no `fathom watch --store` runs on it, a reader "
                               "must create " +
                               path +
                               "-shm beside it, and this user cannot write there; read it as the "
                               "store's owner or while its writer runs",
                           std::error_code(EACCES, std::generic_category()));
    }
    return app_id.status();
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t version,
                          db.QueryInt("PRAGMA user_version", "reading the schema version"));
  FATHOM_ASSIGN_OR_RETURN(int64_t objects,
                          db.QueryInt("SELECT count(*) FROM sqlite_schema", "reading the schema"));
  if (app_id.value() != kApplicationId) {
    if (objects > 0 || read_only) {
      return Status::Error(path +
                           " is not a fathom event store (a SQLite database of another "
                           "application): give the file written by `fathom watch --store`");
    }
    return Status::Ok();  // a new, empty database: the writer creates the schema
  }
  if (version > kSchemaVersion) {
    return Status::Error("event store " + path + " has schema version " + std::to_string(version) +
                         ", newer than this fathom understands (" + std::to_string(kSchemaVersion) +
                         "): use a newer fathom to read it");
  }
  if (version < kSchemaVersion && read_only) {
    return Status::Error("event store " + path + " has schema version " + std::to_string(version) +
                         " of an older fathom: run `fathom watch --store " + path +
                         "` once to upgrade it in place");
  }
  if (version < 1) {
    return Status::Error("event store " + path +
                         " has no schema version: it is damaged; move it "
                         "aside (fathom watch --store then starts a new store)");
  }
  return Status::Ok();
}

Result<std::string> QueryText(const Connection& db, const char* sql, std::string_view what) {
  FATHOM_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql, what));
  int rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return stmt.ColumnText(0);
  if (rc == SQLITE_DONE) return std::string();
  return db.Error(rc, what);
}

Status PrepareWriter(const Connection& db, bool sync_full) {
  FATHOM_ASSIGN_OR_RETURN(std::string mode,
                          QueryText(db, "PRAGMA journal_mode=WAL", "switching to WAL mode"));
  if (mode != "wal") {
    return Status::Error("event store " + db.path() +
                         ": cannot use WAL mode there (journal mode "
                         "stays '" +
                         mode + "'); put the store on a local file system");
  }
  FATHOM_RETURN_IF_ERROR(db.Exec(SyncPragma(sync_full), "setting the sync mode"));
  // Checkpoints leave the WAL file at most this large instead of at its peak size.
  FATHOM_RETURN_IF_ERROR(db.Exec("PRAGMA journal_size_limit=67108864", "limiting the WAL size"));
  FATHOM_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE", "locking the store to create its schema"));
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  Status created = app_id.ok() ? Status::Ok() : app_id.status();
  if (created.ok() && app_id.value() != kApplicationId) {
    created = db.Exec(kCreateSchema, "creating the schema");
  } else if (created.ok()) {
    auto version = db.QueryInt("PRAGMA user_version", "reading the schema version");
    created = version.ok() ? Status::Ok() : version.status();
    if (created.ok() && version.value() == 1) created = MigrateFromVersion1(db, kCreateSchema);
  }
  if (created.ok()) created = db.Exec(kCreateConsumers, "creating the consumers table");
  if (created.ok()) created = db.Exec("COMMIT", "committing the schema");
  if (!created.ok()) db.RollbackIfOpen();
  return created;
}

}  // namespace

Result<Connection> OpenStoreConnection(const StoreOptions& options) {
  const std::string& path = options.path;
  if (path.empty()) return Status::Error("no event store path given");
  int flags = SQLITE_OPEN_NOMUTEX;
  if (options.read_only) {
    FATHOM_RETURN_IF_ERROR(CheckExistingFile(path));
    flags |= SQLITE_OPEN_READONLY;
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return Status::Error(path + " is a directory: give a file path for the event store");
    }
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      return Status::Error("cannot create event store " + path + ": directory " + parent.string() +
                           " does not exist; create it first");
    }
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  }
  FATHOM_ASSIGN_OR_RETURN(Connection db, Connection::Open(path, flags, kBusyTimeoutMs));
  FATHOM_RETURN_IF_ERROR(CheckIdentity(db, options.read_only));
  if (!options.read_only) FATHOM_RETURN_IF_ERROR(PrepareWriter(db, options.sync_full));
  return db;
}

}  // namespace fathom::store
