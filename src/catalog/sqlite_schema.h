// sqlite_schema.h — the SQLite catalog file: its schema (below, for users' own SQL too; see
// docs/catalog.md), how a file is recognised as a catalog (application_id, user_version),
// and opening one for reading or writing with the pragmas a writer needs.
//
//   entries(id INTEGER PRIMARY KEY, dev, ino UNIQUE together, mode, uid, gid, nlink, size,
//           blocks, atime, mtime, ctime (ns since the epoch), symlink BLOB, projid,
//           fid, mdt, stripe_count, stripe_size, pool, osts ("0,3,7") (Lustre; NULL elsewhere),
//           seen (ns: newest observation applied), gen (last scan that saw it))
//   names(parent, name BLOB, id, gen; PRIMARY KEY(parent, name)) WITHOUT ROWID; a root has
//           parent 0 and its absolute path as name; index names_id(id)
//   tree(id: a directory, files, dirs, symlinks, others, size, blocks, max_mtime): its subtree
//   acct(uid, gid, type (S_IFMT bits), count, size, blocks, b0..b9 (size buckets))
//   multi(id): objects with more than one name
//   removed(path BLOB, the entries' attribute columns, time, event_id, by_uid, jobid)
//   streams(name, last_applied, pending: NUL-separated paths); scans(generation, root, started, finished); meta(key, value)
//
// Functions return errors naming the file, the cause and the fix; any thread (each call
// works on its own connection).
#pragma once

#include <string>

#include "fathom/status.h"
#include "store/sqlite_handle.h"

namespace fathom::catalog {

inline constexpr int64_t kCatalogApplicationId = 0x46434154;  // "FCAT"
inline constexpr int kCatalogSchemaVersion = 1;

// The catalog's words in SQLite error messages.
extern const store::SqliteFileKind kCatalogFile;

// Opens the catalog at `path`: a reader requires an existing catalog; a writer creates one in
// a new or empty file, and refuses a file of another application or of a newer schema.
Result<store::Connection> OpenSqliteCatalog(const std::string& path, bool read_only);

// The table of directory names (dirs) and the triggers that keep it: built, from the names
// and entries, by every writer that opens a catalog without them (a catalog of an older
// fathom) and at the end of a first scan, which drops them (DropDirectoryNames) as it drops
// the query indexes: a trigger per name costs a first scan a fifth of its time.
// KeepsDirectoryNames tells a reader whether it may read the table.
Status KeepDirectoryNames(const store::Connection& db);
Status DropDirectoryNames(const store::Connection& db);
// Empties the table and fills it again from the names (a recount's repair).
Status RefillDirectoryNames(const store::Connection& db);
Result<bool> KeepsDirectoryNames(const store::Connection& db);

// The indexes only queries use (owner, size, mtime): dropped for a first scan into an empty
// catalog, built again (if missing) at its end and by every writer that opens the catalog.
Status DropSecondaryIndexes(const store::Connection& db);
Status BuildSecondaryIndexes(const store::Connection& db);

}  // namespace fathom::catalog
