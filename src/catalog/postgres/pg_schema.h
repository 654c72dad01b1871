// pg_schema.h — the PostgreSQL catalog: its schema (the SQLite catalog's tables and columns,
// sqlite_schema.h, in PostgreSQL types: bigint for integers, bytea for file names, paths and
// symlink targets, text for the names fathom makes), how a database is recognised as a
// catalog (the meta rows 'application_id' and 'schema_version', standing for SQLite's header
// fields), and opening one for reading or writing.
//
// The tables live in the connection's current schema (search_path; "public" unless the URI
// sets options=-csearch_path=...). removed has one column more than in SQLite: rowid, the
// order of insertion (SQLite's implicit rowid).
//
// Functions return errors naming the server, database and user, the cause and the fix.
#pragma once

#include <string>

#include "catalog/postgres/session.h"
#include "fathom/status.h"

namespace fathom::catalog::pg {

inline constexpr int64_t kPgCatalogApplicationId = 0x46434154;  // "FCAT", as in SQLite
inline constexpr int kPgCatalogSchemaVersion = 1;
// The key of the transaction-level advisory lock every writer takes (one writer at a time).
inline constexpr int64_t kWriterLockKey = 0x4643415457524954;  // "FCATWRIT"

// Opens the catalog at `uri`: a reader requires an existing catalog (and its session refuses
// writes); a writer creates one in a schema without tables, and refuses a schema holding
// other tables, or a catalog of a newer schema version.
Result<Session> OpenPgCatalog(const std::string& uri, bool read_only);

// `uri` without its password, for messages and CatalogInfo.
std::string RedactUri(const std::string& uri);

}  // namespace fathom::catalog::pg
