#include "catalog/sqlite_schema.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <string>

#include "store/sqlite_file_open.h"

namespace fathom::catalog {
namespace {

constexpr int kBusyTimeoutMs = 10000;

// The writer's page cache (KiB); an index is built with SQLite's default instead: its sorter
// sorts runs as large as the cache, and runs of 64 MB sort about twice as slowly as small ones
// merged.
constexpr const char* kWriterCache = "PRAGMA cache_size=-65536";
constexpr const char* kSortingCache = "PRAGMA cache_size=-2000";

// The indexes only queries use: a first scan into an empty catalog drops them and builds
// them once at its end (sorting is cheaper than keeping them up to date row by row); every
// writer makes sure they exist, so a first scan killed halfway leaves nothing missing.
// The owner's index holds the size too, so that a find by owner and size reads only what it
// prints; it replaced an index of the owner alone (entries_uid, dropped where it is left).
constexpr const char* kSecondaryIndexes =
    "DROP INDEX IF EXISTS entries_uid;"
    "CREATE INDEX IF NOT EXISTS entries_uid_size ON entries(uid, size);"
    "CREATE INDEX IF NOT EXISTS entries_size ON entries(size);"
    "CREATE INDEX IF NOT EXISTS entries_mtime ON entries(mtime);";

// The names of directories alone, kept by triggers from the names table (every writer, this
// fathom's or an older one, keeps it): building the paths above a query's answers reads this
// small table (about 20 bytes per directory) instead of the index of every name, a few hundred
// pages instead of thousands. A directory normally has one name; while a missed rename is
// settled it may briefly have two, so the key is the whole row, as in names_id.
constexpr const char* kDirectoryNamesTable =
    "CREATE TABLE IF NOT EXISTS dirs(id INTEGER NOT NULL, parent INTEGER NOT NULL, name BLOB NOT NULL,"
    " PRIMARY KEY(id, parent, name)) WITHOUT ROWID;";
constexpr const char* kDirectoryNamesFill =
    "INSERT INTO dirs(id, parent, name) SELECT n.id, n.parent, n.name FROM entries e"
    " JOIN names n ON n.id = e.id WHERE (e.mode & 61440) = 16384 ORDER BY n.id, n.parent, n.name;";
// The triggers kDirectoryNamesTriggers makes: all of them keep the table, none missing.
constexpr const char* kDirectoryNamesTriggerNames[] = {"dirs_name_added", "dirs_name_removed", "dirs_name_moved",
                                                       "dirs_type_changed"};
constexpr const char* kDirectoryNamesTriggers =
    "CREATE TRIGGER dirs_name_added AFTER INSERT ON names"
    " WHEN (SELECT mode & 61440 FROM entries WHERE id = NEW.id) = 16384"
    " BEGIN INSERT OR IGNORE INTO dirs(id, parent, name) VALUES(NEW.id, NEW.parent, NEW.name); END;"
    "CREATE TRIGGER dirs_name_removed AFTER DELETE ON names"
    " BEGIN DELETE FROM dirs WHERE id = OLD.id AND parent = OLD.parent AND name = OLD.name; END;"
    "CREATE TRIGGER dirs_name_moved AFTER UPDATE OF parent, name ON names"
    " BEGIN UPDATE OR REPLACE dirs SET parent = NEW.parent, name = NEW.name"
    " WHERE id = OLD.id AND parent = OLD.parent AND name = OLD.name; END;"
    "CREATE TRIGGER dirs_type_changed AFTER UPDATE OF mode ON entries"
    " WHEN ((OLD.mode & 61440) = 16384) <> ((NEW.mode & 61440) = 16384)"
    " BEGIN DELETE FROM dirs WHERE id = OLD.id;"
    " INSERT OR IGNORE INTO dirs(id, parent, name) SELECT id, parent, name FROM names"
    " WHERE id = NEW.id AND (NEW.mode & 61440) = 16384; END;";

constexpr const char* kCreateSchema =
    "CREATE TABLE entries(id INTEGER PRIMARY KEY, dev INTEGER NOT NULL, ino INTEGER NOT NULL,"
    " mode INTEGER NOT NULL, uid INTEGER NOT NULL, gid INTEGER NOT NULL, nlink INTEGER NOT NULL,"
    " size INTEGER NOT NULL, blocks INTEGER NOT NULL, atime INTEGER NOT NULL,"
    " mtime INTEGER NOT NULL, ctime INTEGER NOT NULL, symlink BLOB, projid INTEGER,"
    " fid TEXT, mdt INTEGER, stripe_count INTEGER, stripe_size INTEGER, pool TEXT, osts TEXT,"
    " seen INTEGER NOT NULL, gen INTEGER NOT NULL);"
    "CREATE UNIQUE INDEX entries_identity ON entries(dev, ino);"
    "CREATE TABLE names(parent INTEGER NOT NULL, name BLOB NOT NULL, id INTEGER NOT NULL,"
    " gen INTEGER NOT NULL, PRIMARY KEY(parent, name)) WITHOUT ROWID;"
    "CREATE INDEX names_id ON names(id);"
    "CREATE TABLE tree(id INTEGER PRIMARY KEY, files INTEGER NOT NULL, dirs INTEGER NOT NULL,"
    " symlinks INTEGER NOT NULL, others INTEGER NOT NULL, size INTEGER NOT NULL,"
    " blocks INTEGER NOT NULL, max_mtime INTEGER NOT NULL);"
    "CREATE TABLE acct(uid INTEGER NOT NULL, gid INTEGER NOT NULL, type INTEGER NOT NULL,"
    " count INTEGER NOT NULL, size INTEGER NOT NULL, blocks INTEGER NOT NULL,"
    " b0 INTEGER NOT NULL, b1 INTEGER NOT NULL, b2 INTEGER NOT NULL, b3 INTEGER NOT NULL,"
    " b4 INTEGER NOT NULL, b5 INTEGER NOT NULL, b6 INTEGER NOT NULL, b7 INTEGER NOT NULL,"
    " b8 INTEGER NOT NULL, b9 INTEGER NOT NULL, PRIMARY KEY(uid, gid, type)) WITHOUT ROWID;"
    "CREATE TABLE multi(id INTEGER PRIMARY KEY);"
    "CREATE TABLE removed(path BLOB NOT NULL, dev INTEGER NOT NULL, ino INTEGER NOT NULL,"
    " mode INTEGER NOT NULL, uid INTEGER NOT NULL, gid INTEGER NOT NULL, nlink INTEGER NOT NULL,"
    " size INTEGER NOT NULL, blocks INTEGER NOT NULL, atime INTEGER NOT NULL,"
    " mtime INTEGER NOT NULL, ctime INTEGER NOT NULL, symlink BLOB, projid INTEGER,"
    " fid TEXT, mdt INTEGER, stripe_count INTEGER, stripe_size INTEGER, pool TEXT, osts TEXT,"
    " time INTEGER NOT NULL, event_id INTEGER NOT NULL, by_uid INTEGER, jobid TEXT);"
    "CREATE INDEX removed_time ON removed(time);"
    "CREATE INDEX removed_identity ON removed(dev, ino);"
    "CREATE TABLE streams(name TEXT PRIMARY KEY, last_applied INTEGER NOT NULL,"
    " pending BLOB NOT NULL DEFAULT x'') WITHOUT ROWID;"
    "CREATE TABLE scans(generation INTEGER PRIMARY KEY, root BLOB NOT NULL,"
    " started INTEGER NOT NULL, finished INTEGER);"
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
    "INSERT INTO meta(key, value) VALUES('last_entry_id', 0);"
    "PRAGMA application_id = 1178812756;"  // kCatalogApplicationId
    "PRAGMA user_version = 1;";            // kCatalogSchemaVersion

std::string NotACatalog(const std::string& path, const std::string& what) {
  return path + " is not a fathom catalog (" + what +
         "): give a catalog file, or a new path to create one";
}

// Whether the opened file is a catalog of a version this build reads (or a new, empty file,
// for a writer). Returns its schema version (0: a new database).
Result<int64_t> CheckIdentity(const store::Connection& db, bool read_only) {
  const std::string& path = db.path();
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  if (!app_id.ok()) {
    int rc = sqlite3_extended_errcode(db.get());
    if ((rc & 0xff) == SQLITE_NOTADB) return Status::Error(NotACatalog(path, "not a SQLite database"));
    return app_id.status();
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t objects,
                          db.QueryInt("SELECT count(*) FROM sqlite_schema", "reading the schema"));
  if (app_id.value() != kCatalogApplicationId) {
    if (objects > 0 || read_only) {
      return Status::Error(NotACatalog(
          path, app_id.value() == 1179928653 ? "it is a fathom event store"
                                             : "a SQLite database of another application"));
    }
    return int64_t{0};
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t version,
                          db.QueryInt("PRAGMA user_version", "reading the schema version"));
  if (version > kCatalogSchemaVersion) {
    return Status::Error("catalog " + path + " has schema version " + std::to_string(version) +
                         ", newer than this fathom understands (" +
                         std::to_string(kCatalogSchemaVersion) + "): use a newer fathom");
  }
  if (version < 1) {
    return Status::Error("catalog " + path +
                         " has no schema version: it is damaged; move it aside and build a new "
                         "catalog with a scan");
  }
  return version;
}

Status PrepareWriter(const store::Connection& db) {
  std::string mode;
  {
    FATHOM_ASSIGN_OR_RETURN(store::Statement wal,
                            db.Prepare("PRAGMA journal_mode=WAL", "switching to WAL mode"));
    int rc = sqlite3_step(wal.get());
    if (rc != SQLITE_ROW) return db.Error(rc, "switching to WAL mode");
    mode = wal.ColumnText(0);
  }
  if (mode != "wal") {
    return Status::Error("catalog " + db.path() + ": cannot use WAL mode there (journal mode stays '" +
                         mode + "'); put the catalog on a local file system");
  }
  // WAL with synchronous=NORMAL: a committed transaction survives a crash of the process
  // (SIGKILL) whole or not at all; a power loss may lose the last commits, never consistency.
  // Temporary b-trees stay in files (cached by the OS): SQLite sorts the rows of a new index
  // two to three times slower with temp_store=MEMORY.
  const std::string pragmas =
      std::string("PRAGMA synchronous=NORMAL; ") + kWriterCache + "; PRAGMA journal_size_limit=67108864";
  FATHOM_RETURN_IF_ERROR(db.Exec(pragmas.c_str(),
                                 "setting the writer's pragmas"));
  FATHOM_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE", "locking the catalog to create its schema"));
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  Status created = app_id.ok() ? Status::Ok() : app_id.status();
  if (created.ok() && app_id.value() != kCatalogApplicationId) {
    created = db.Exec(kCreateSchema, "creating the schema");
  }
  if (created.ok()) created = KeepDirectoryNames(db);
  if (created.ok()) created = BuildSecondaryIndexes(db);
  if (created.ok()) created = db.Exec("COMMIT", "committing the schema");
  if (!created.ok()) db.RollbackIfOpen();
  return created;
}

}  // namespace

Result<bool> KeepsDirectoryNames(const store::Connection& db) {
  std::string names;
  for (const char* trigger : kDirectoryNamesTriggerNames) names += std::string(names.empty() ? "'" : ", '") + trigger + "'";
  const std::string sql = "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (" + names + ")";
  FATHOM_ASSIGN_OR_RETURN(int64_t triggers, db.QueryInt(sql.c_str(), "reading the schema"));
  return triggers == static_cast<int64_t>(std::size(kDirectoryNamesTriggerNames));
}

Status KeepDirectoryNames(const store::Connection& db) {
  FATHOM_ASSIGN_OR_RETURN(bool kept, KeepsDirectoryNames(db));
  if (kept) return Status::Ok();
  FATHOM_RETURN_IF_ERROR(DropDirectoryNames(db));
  const std::string sql = std::string(kDirectoryNamesTable) + kDirectoryNamesFill + kDirectoryNamesTriggers;
  return db.Exec(sql.c_str(), "building the table of directory names");
}

Status RefillDirectoryNames(const store::Connection& db) {
  return db.Exec((std::string("DELETE FROM dirs;") + kDirectoryNamesFill).c_str(),
                 "filling the table of directory names again");
}

Status DropDirectoryNames(const store::Connection& db) {
  std::string sql;
  for (const char* trigger : kDirectoryNamesTriggerNames) sql += std::string("DROP TRIGGER IF EXISTS ") + trigger + ";";
  return db.Exec((sql + "DROP TABLE IF EXISTS dirs").c_str(), "dropping the table of directory names for a first scan");
}

Status DropSecondaryIndexes(const store::Connection& db) {
  return db.Exec("DROP INDEX IF EXISTS entries_uid_size; DROP INDEX IF EXISTS entries_size;"
                 " DROP INDEX IF EXISTS entries_mtime",
                 "dropping the query indexes for a first scan");
}

Status BuildSecondaryIndexes(const store::Connection& db) {
  FATHOM_RETURN_IF_ERROR(db.Exec(kSortingCache, "building the query indexes"));
  Status built = db.Exec(kSecondaryIndexes, "building the query indexes");
  Status restored = db.Exec(kWriterCache, "building the query indexes");
  return built.ok() ? restored : built;
}

const store::SqliteFileKind kCatalogFile = {
    .noun = "catalog",
    .no_space = "no space left on the file system holding the catalog",
    .no_space_remedy = "free space there (the catalog needs about 200 bytes per entry), or "
                       "move the catalog to a larger file system",
    .io_remedy = "check the device and file system holding the catalog",
    .locked = "the catalog stayed locked by another writer past the busy timeout; only one "
              "process may write a catalog at a time",
    .damaged = "the file is damaged (corrupt); move it aside and build a new catalog with a "
               "scan",
    .not_a_database = "not a fathom catalog (not a SQLite database)",
    .read_only = "the catalog cannot be written (read-only file, directory or file system); "
                 "check permissions, or open it read-only",
    .read_only_fs = "the file system holding the catalog is mounted read-only",
    .read_only_fs_remedy = "open it read-only to query it",
};

Result<store::Connection> OpenSqliteCatalog(const std::string& path, bool read_only) {
  FATHOM_ASSIGN_OR_RETURN(store::Connection db,
                          store::OpenSqliteFile(path, read_only, kBusyTimeoutMs, kCatalogFile, "a fathom catalog",
                                                "create it with a scan first"));
  FATHOM_RETURN_IF_ERROR(CheckIdentity(db, read_only).status());
  if (!read_only) FATHOM_RETURN_IF_ERROR(PrepareWriter(db));
  // A reader reads pages in place (memory-mapped, up to SQLite's limit) rather than copied by
  // a system call each: a query that looks up thousands of names costs less. A writer does
  // not: the mapped pages would count in its resident memory as the catalog grows.
  if (read_only) FATHOM_RETURN_IF_ERROR(db.Exec("PRAGMA mmap_size=17179869184", "mapping the catalog"));
  return db;
}

}  // namespace fathom::catalog
