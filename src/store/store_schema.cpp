#include "store/store_schema.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "store/store_check.h"
#include "store/store_files.h"
#include "store/store_migration.h"

namespace fathom::store {
namespace {

// Durable consumers' acknowledged ids; added to version 2 without changing its number (older
// version 2 stores get it from their first writer; readers never need it).
constexpr const char* kCreateConsumers =
    "CREATE TABLE IF NOT EXISTS consumers(name TEXT PRIMARY KEY, acked_id INTEGER NOT NULL) "
    "WITHOUT ROWID";

// Chunk checksums; added to version 2 without changing its number (older version 2 stores get
// the column from their first writer, their rows keep NULL; readers do without it).
constexpr const char* kAddChecksums = "ALTER TABLE chunks ADD COLUMN crc INTEGER";

constexpr const char* kCreateSchema =
    "CREATE TABLE chunks(first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL,"
    " min_ts INTEGER NOT NULL, max_ts INTEGER NOT NULL, data BLOB NOT NULL, crc INTEGER);"
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
// schema version this build understands. Returns its schema version (0: a new database).
Result<int64_t> CheckIdentity(const Connection& db, bool read_only) {
  const std::string& path = db.path();
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  if (!app_id.ok()) {
    int rc = sqlite3_extended_errcode(db.get());
    if ((rc & 0xff) == SQLITE_NOTADB) {
      return Status::Error(path +
                           " is not a fathom event store (not a SQLite database): give the "
                           "file written by `fathom watch --store`");
    }
    return app_id.status();
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t version,
                          db.QueryInt("PRAGMA user_version", "reading the schema version"));
  FATHOM_ASSIGN_OR_RETURN(int64_t objects,
                          db.QueryInt("SELECT count(*) FROM sqlite_schema", "reading the schema"));
  if (app_id.value() != kApplicationId) {
    if (objects == 0 && read_only) {
      // A writer stopped after SQLite made the file and before the schema was committed.
      return Status::Error(path + " is empty, not yet a fathom event store: " + StartHint(path));
    }
    if (objects > 0) {
      return Status::Error(path +
                           " is not a fathom event store (a SQLite database of another "
                           "application): give the file written by `fathom watch --store`");
    }
    return int64_t{0};  // a new, empty database: the writer creates the schema
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
  return version;
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
    if (created.ok()) {
      auto has_crc = HasChecksumColumn(db);
      created = has_crc.ok() ? Status::Ok() : has_crc.status();
      if (created.ok() && !has_crc.value()) created = db.Exec(kAddChecksums, "adding checksums");
    }
  }
  if (created.ok()) created = db.Exec(kCreateConsumers, "creating the consumers table");
  if (created.ok()) created = db.Exec("COMMIT", "committing the schema");
  if (!created.ok()) db.RollbackIfOpen();
  return created;
}

// The reader's error when the WAL holds events that only a -shm file could make readable.
Status WalNeedsShm(const std::string& path, const StoreFiles& files) {
  const std::string why =
      files.read_only_fs
          ? "the file system holding it is mounted read-only"
          : "this user cannot create files in " + DirectoryOf(path) + " (" +
                std::strerror(files.create_errno) + ")";
  return Status::Error(
      "cannot read event store " + path + ": its newest events are still in " + path +
          "-wal, and reading them needs " + path + "-shm beside it, which is absent and cannot be "
          "created: " + why + "; copy " + path + " and " + path +
          "-wal together to writable storage and read the copy" +
          (files.read_only_fs ? "" : ", or read it as the store's owner or while its writer runs"),
      std::error_code(files.create_errno, std::generic_category()));
}

// A reader reads what it can of a damaged store: SQLite refuses a file shorter than its header
// says (a truncated store) unless writable_schema is on, which on a read-only connection
// changes nothing else that matters here (it can write nothing).
Status TolerateDamage(const Connection& db) {
  return db.Exec("PRAGMA writable_schema=ON", "opening the store");
}

Result<OpenedStore> OpenReader(const StoreOptions& options) {
  const std::string& path = options.path;
  FATHOM_RETURN_IF_ERROR(CheckExistingFile(path));
  const StoreFiles files = ProbeStoreFiles(path);
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  const bool no_shm = !files.shm_exists && files.create_errno != 0;
  if (!no_shm || files.WalHoldsFrames()) {
    FATHOM_ASSIGN_OR_RETURN(Connection db, Connection::Open(path, flags, kBusyTimeoutMs));
    FATHOM_RETURN_IF_ERROR(TolerateDamage(db));
    auto identity = CheckIdentity(db, true);
    if (identity.ok()) {
      FATHOM_ASSIGN_OR_RETURN(bool has_crc, HasChecksumColumn(db));
      return OpenedStore{std::move(db), false, has_crc};
    }
    const int rc = sqlite3_extended_errcode(db.get()) & 0xff;
    if (files.create_errno == 0 || (rc != SQLITE_CANTOPEN && rc != SQLITE_READONLY)) {
      return identity.status();
    }
    // The -shm there cannot be used (a stale one, not writable, no WAL beside it) nor made.
    if (files.WalHoldsFrames()) return WalNeedsShm(path, files);
  }
  // No writer can be running (it would keep a -shm and a -wal), and the WAL holds nothing: the
  // main file is the whole store, read without locks or shared memory.
  FATHOM_ASSIGN_OR_RETURN(Connection db,
                          Connection::Open(path, flags, kBusyTimeoutMs, "immutable=1"));
  FATHOM_RETURN_IF_ERROR(TolerateDamage(db));
  FATHOM_RETURN_IF_ERROR(CheckIdentity(db, true).status());
  FATHOM_ASSIGN_OR_RETURN(bool has_crc, HasChecksumColumn(db));
  spdlog::debug("event store {}: read as an immutable file ({}: no -shm file can be created)",
                path, files.read_only_fs ? "read-only file system" : std::strerror(files.create_errno));
  return OpenedStore{std::move(db), true, has_crc};
}

// A writer's file must be on a file system mounted read-write.
Status CheckWritableMedia(const std::string& path) {
  if (!OnReadOnlyFileSystem(path)) return Status::Ok();
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  return Status::Error(
      std::string(exists ? "cannot write event store " : "cannot create event store ") + path +
          ": the file system holding it is mounted read-only (" + std::strerror(EROFS) +
          "), and a writer needs to write the store and create " + path + "-wal and " + path +
          "-shm beside it; give a --store on writable storage" +
          (exists ? " (`fathom events --store " + path + "` still reads this one)" : ""),
      std::error_code(EROFS, std::generic_category()));
}

Result<OpenedStore> OpenWriter(const StoreOptions& options) {
  const std::string& path = options.path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::Error(path + " is a directory: give a file path for the event store");
  }
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return Status::Error("cannot create event store " + path + ": directory " + parent.string() +
                         " does not exist; create it first");
  }
  FATHOM_RETURN_IF_ERROR(CheckWritableMedia(path));
  const int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  FATHOM_ASSIGN_OR_RETURN(Connection db, Connection::Open(path, flags, kBusyTimeoutMs));
  auto identity = CheckIdentity(db, false);
  if (!identity.ok()) {
    if ((sqlite3_extended_errcode(db.get()) & 0xff) == SQLITE_CORRUPT) {
      return DamagedStoreError(path, "SQLite cannot read it (" +
                                         std::string(sqlite3_errmsg(db.get())) + ")");
    }
    return identity.status();
  }
  const int64_t version = identity.value();
  if (version > 0) {
    bool has_crc = false;
    if (version >= 2) {
      FATHOM_ASSIGN_OR_RETURN(has_crc, HasChecksumColumn(db));
    }
    FATHOM_RETURN_IF_ERROR(CheckBeforeWriting(db, version, has_crc, options.open_check_limit));
  }
  FATHOM_RETURN_IF_ERROR(PrepareWriter(db, options.sync_full));
  return OpenedStore{std::move(db), false, true};
}

}  // namespace

Result<OpenedStore> OpenStoreConnection(const StoreOptions& options) {
  if (options.path.empty()) return Status::Error("no event store path given");
  return options.read_only ? OpenReader(options) : OpenWriter(options);
}

}  // namespace fathom::store
