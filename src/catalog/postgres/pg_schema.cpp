#include "catalog/postgres/pg_schema.h"

namespace fathom::catalog::pg {
namespace {

constexpr const char* kCreateSchema =
    "CREATE TABLE entries(id bigint PRIMARY KEY, dev bigint NOT NULL, ino bigint NOT NULL,"
    " mode bigint NOT NULL, uid bigint NOT NULL, gid bigint NOT NULL, nlink bigint NOT NULL,"
    " size bigint NOT NULL, blocks bigint NOT NULL, atime bigint NOT NULL,"
    " mtime bigint NOT NULL, ctime bigint NOT NULL, symlink bytea, projid bigint,"
    " fid text, mdt bigint, stripe_count bigint, stripe_size bigint, pool text, osts text,"
    " seen bigint NOT NULL, gen bigint NOT NULL);"
    "CREATE UNIQUE INDEX entries_identity ON entries(dev, ino);"
    "CREATE INDEX entries_uid_size ON entries(uid, size);"
    "CREATE INDEX entries_size ON entries(size);"
    "CREATE INDEX entries_mtime ON entries(mtime);"
    "CREATE TABLE names(parent bigint NOT NULL, name bytea NOT NULL, id bigint NOT NULL,"
    " gen bigint NOT NULL, PRIMARY KEY(parent, name));"
    "CREATE INDEX names_id ON names(id);"
    "CREATE TABLE tree(id bigint PRIMARY KEY, files bigint NOT NULL, dirs bigint NOT NULL,"
    " symlinks bigint NOT NULL, others bigint NOT NULL, size bigint NOT NULL,"
    " blocks bigint NOT NULL, max_mtime bigint NOT NULL);"
    "CREATE TABLE acct(uid bigint NOT NULL, gid bigint NOT NULL, type bigint NOT NULL,"
    " count bigint NOT NULL, size bigint NOT NULL, blocks bigint NOT NULL,"
    " b0 bigint NOT NULL, b1 bigint NOT NULL, b2 bigint NOT NULL, b3 bigint NOT NULL,"
    " b4 bigint NOT NULL, b5 bigint NOT NULL, b6 bigint NOT NULL, b7 bigint NOT NULL,"
    " b8 bigint NOT NULL, b9 bigint NOT NULL, PRIMARY KEY(uid, gid, type));"
    "CREATE TABLE multi(id bigint PRIMARY KEY);"
    "CREATE TABLE removed(path bytea NOT NULL, dev bigint NOT NULL, ino bigint NOT NULL,"
    " mode bigint NOT NULL, uid bigint NOT NULL, gid bigint NOT NULL, nlink bigint NOT NULL,"
    " size bigint NOT NULL, blocks bigint NOT NULL, atime bigint NOT NULL,"
    " mtime bigint NOT NULL, ctime bigint NOT NULL, symlink bytea, projid bigint,"
    " fid text, mdt bigint, stripe_count bigint, stripe_size bigint, pool text, osts text,"
    " time bigint NOT NULL, event_id bigint NOT NULL, by_uid bigint, jobid bytea,"
    " rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);"
    "CREATE INDEX removed_time ON removed(time);"
    "CREATE INDEX removed_identity ON removed(dev, ino);"
    "CREATE TABLE streams(name text PRIMARY KEY, last_applied bigint NOT NULL,"
    " pending bytea NOT NULL DEFAULT ''::bytea);"
    "CREATE TABLE scans(generation bigint PRIMARY KEY, root bytea NOT NULL,"
    " started bigint NOT NULL, finished bigint);"
    "CREATE TABLE meta(key text PRIMARY KEY, value bigint NOT NULL);"
    "INSERT INTO meta(key, value) VALUES('last_entry_id', 0), ('application_id', 1178812756),"
    " ('schema_version', 1)";  // kPgCatalogApplicationId, kPgCatalogSchemaVersion

// The tables of the current schema: how many, and whether one is called meta.
struct SchemaTables {
  int64_t count = 0;
  bool meta = false;
};

Result<SchemaTables> ReadTables(Session& session) {
  FATHOM_ASSIGN_OR_RETURN(
      Rows rows, session.Query("SELECT count(*), count(*) FILTER (WHERE c.relname = 'meta')"
                               " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                               " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
                               {}, "read the schema's tables"));
  return SchemaTables{rows.Int(0, 0), rows.Int(0, 1) > 0};
}

Result<int64_t> MetaValue(Session& session, std::string_view key) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, session.Query("SELECT value FROM meta WHERE key = $1",
                                                   {Param::Text(key)}, "read the catalog's meta table"));
  return rows.size() == 0 ? int64_t{-1} : rows.Int(0, 0);
}

// Whether the schema holds a catalog this build reads. Returns its schema version, or 0 when
// the schema holds no table at all.
Result<int64_t> CheckIdentity(Session& session) {
  FATHOM_ASSIGN_OR_RETURN(SchemaTables tables, ReadTables(session));
  if (tables.count == 0) return int64_t{0};
  const std::string not_a_catalog =
      session.server() + " is not a fathom catalog: its schema holds " + std::to_string(tables.count) +
      " tables of another application; give an empty database (or set another schema with "
      "?options=-csearch_path%3DSCHEMA)";
  if (!tables.meta) return Status::Error(not_a_catalog);
  auto app_id = MetaValue(session, "application_id");
  if (!app_id.ok() || app_id.value() != kPgCatalogApplicationId) return Status::Error(not_a_catalog);
  FATHOM_ASSIGN_OR_RETURN(int64_t version, MetaValue(session, "schema_version"));
  if (version > kPgCatalogSchemaVersion) {
    return Status::Error(session.server() + " holds a catalog of schema version " + std::to_string(version) +
                         ", newer than this fathom understands (" +
                         std::to_string(kPgCatalogSchemaVersion) + "): use a newer fathom");
  }
  if (version < 1) {
    return Status::Error(session.server() +
                         " holds a catalog with no schema version: it is damaged; drop its tables "
                         "and build a new catalog with a scan");
  }
  return version;
}

// Creates the schema when it holds no table yet, under the writers' lock (two writers
// starting at once create it once).
Status CreateIfEmpty(Session& session) {
  FATHOM_RETURN_IF_ERROR(session.Begin());
  Status status = session.Query("SELECT pg_advisory_xact_lock($1)", {Param::Int(kWriterLockKey)},
                                "lock the catalog to create its schema")
                      .status();
  Result<int64_t> version = status.ok() ? CheckIdentity(session) : Result<int64_t>(status);
  if (version.ok() && version.value() == 0) status = session.Exec(kCreateSchema, "create the catalog's tables");
  if (!version.ok()) status = version.status();
  if (status.ok()) return session.Commit();
  (void)session.Rollback();
  return status;
}

}  // namespace

Result<Session> OpenPgCatalog(const std::string& uri, bool read_only) {
  SessionOptions options;
  options.read_only = read_only;
  FATHOM_ASSIGN_OR_RETURN(Session session, Session::Open(uri, options));
  FATHOM_ASSIGN_OR_RETURN(int64_t version, CheckIdentity(session));
  if (version == 0) {
    if (read_only) {
      return Status::Error("no catalog in " + session.server() + ": create it with a scan first");
    }
    FATHOM_RETURN_IF_ERROR(CreateIfEmpty(session));
  }
  return session;
}

std::string RedactUri(const std::string& uri) {
  const size_t scheme = uri.find("://");
  if (scheme == std::string::npos) return uri;
  const size_t start = scheme + 3;
  const size_t end = uri.find_first_of("/?", start);
  const size_t at = uri.rfind('@', end == std::string::npos ? std::string::npos : end);
  if (at == std::string::npos || at < start) return uri;
  const size_t colon = uri.find(':', start);
  if (colon == std::string::npos || colon > at) return uri;
  return uri.substr(0, colon) + uri.substr(at);
}

}  // namespace fathom::catalog::pg
