// journal_pg.cpp — the action journal's tables in a PostgreSQL catalog (the connection's
// current schema, beside the catalog's tables; paths as bytea like the catalog's).
#include "catalog/postgres/pg_schema.h"
#include "catalog/postgres/session.h"
#include "policy/journal_db.h"

namespace fathom::policy {
namespace {

namespace pg = catalog::pg;

constexpr const char* kTables =
    "CREATE TABLE IF NOT EXISTS policy_runs(id bigserial PRIMARY KEY, policy text NOT NULL,"
    " \"user\" text NOT NULL, host text NOT NULL, target text NOT NULL, started bigint NOT NULL,"
    " finished bigint NOT NULL, state text NOT NULL, actions bigint NOT NULL,"
    " failed bigint NOT NULL, skipped bigint NOT NULL, volume bigint NOT NULL,"
    " message text NOT NULL);"
    "CREATE TABLE IF NOT EXISTS policy_actions(id bigserial PRIMARY KEY, run bigint NOT NULL,"
    " policy text NOT NULL, rule text NOT NULL, action text NOT NULL, path bytea NOT NULL,"
    " destination bytea NOT NULL, dev bigint NOT NULL, ino bigint NOT NULL, fid text NOT NULL,"
    " uid bigint NOT NULL, gid bigint NOT NULL, size bigint NOT NULL, state text NOT NULL,"
    " result text NOT NULL, started bigint NOT NULL, finished bigint NOT NULL);"
    "CREATE INDEX IF NOT EXISTS policy_actions_run ON policy_actions(run, state);"
    "CREATE INDEX IF NOT EXISTS policy_actions_path ON policy_actions(path);"
    "CREATE INDEX IF NOT EXISTS policy_runs_policy ON policy_runs(policy, finished);"
    "CREATE TABLE IF NOT EXISTS alert_state(alert text NOT NULL, key bytea NOT NULL, detail text NOT NULL,"
    " raised bigint NOT NULL, notified bigint NOT NULL, PRIMARY KEY(alert, key));";

class PgJournal final : public JournalDb {
 public:
  explicit PgJournal(pg::Session session) : session_(std::move(session)) {}
  // The locks go with the session, but the server notices a closed connection a moment later:
  // a run started right after this one ended would find its policy still locked. A lost
  // connection holds no lock: nothing to do then.
  ~PgJournal() override {
    if (locked_ && session_.Connected()) (void)session_.Exec("SELECT pg_advisory_unlock_all()", "unlock the policy's runs");
  }
  PgJournal(const PgJournal&) = delete;
  PgJournal& operator=(const PgJournal&) = delete;

  Status CreateTables() override {
    // Two runners starting at once make the tables once.
    FATHOM_RETURN_IF_ERROR(session_.Begin());
    Status s = session_.Query("SELECT pg_advisory_xact_lock($1)", {pg::Param::Int(pg::kWriterLockKey)},
                              "lock the catalog to make the policy journal's tables")
                   .status();
    if (s.ok()) s = session_.Exec(kTables, "make the policy journal's tables");
    if (s.ok()) return session_.Commit();
    (void)session_.Rollback();
    return s;
  }

  // A session-level advisory lock (released when the session ends, or the server sees the
  // connection die).
  Status LockPolicy(std::string_view policy) override {
    FATHOM_ASSIGN_OR_RETURN(pg::Rows rows, session_.Query("SELECT pg_try_advisory_lock($1)::int::bigint",
                                                          {pg::Param::Int(PolicyLockKey(policy))},
                                                          "lock the policy's runs"));
    if (rows.size() != 1 || rows.Int(0, 0) != 1) return PolicyBusy(policy);
    locked_ = true;
    return Status::Ok();
  }

  Result<bool> HasTables() override {
    FATHOM_ASSIGN_OR_RETURN(
        pg::Rows rows, session_.Query("SELECT (CASE WHEN to_regclass('policy_actions') IS NULL THEN 0 ELSE 1 END)::bigint",
                                      {}, "look for the policy journal"));
    return rows.size() == 1 && rows.Int(0, 0) == 1;
  }

  Status Begin() override { return session_.Begin(); }
  Status Commit() override { return session_.Commit(); }
  void Rollback() override { (void)session_.Rollback(); }

  Result<std::vector<SqlRow>> Query(std::string_view sql, const std::vector<SqlValue>& params,
                                    std::string_view what) override {
    std::vector<pg::Param> bound;
    bound.reserve(params.size());
    for (const SqlValue& p : params) {
      if (const auto* n = std::get_if<int64_t>(&p)) bound.push_back(pg::Param::Int(*n));
      else if (const auto* s = std::get_if<std::string>(&p)) bound.push_back(pg::Param::Text(*s));
      else if (const auto* b = std::get_if<Blob>(&p)) bound.push_back(pg::Param::Bytes(b->bytes));
      else bound.push_back(pg::Param::Null(pg::Type::kText));
    }
    FATHOM_ASSIGN_OR_RETURN(pg::Rows rows, session_.Query(sql, bound, what));
    std::vector<SqlRow> out;
    for (int r = 0; r < rows.size(); ++r) {
      SqlRow row;
      for (int c = 0; c < rows.columns(); ++c) {
        if (rows.IsNull(r, c)) {
          row.emplace_back(std::monostate{});
          continue;
        }
        const Oid type = rows.type(c);
        if (type == static_cast<Oid>(pg::Type::kInt)) row.emplace_back(rows.Int(r, c));
        else if (type == static_cast<Oid>(pg::Type::kBytes)) row.emplace_back(Blob{std::string(rows.Bytes(r, c))});
        else row.emplace_back(std::string(rows.Bytes(r, c)));
      }
      out.push_back(std::move(row));
    }
    return out;
  }

 private:
  pg::Session session_;
  bool locked_ = false;  // a policy lock was taken
};

}  // namespace

Result<std::unique_ptr<JournalDb>> OpenPgJournal(const std::string& uri, bool read_only) {
  // A writer of the journal needs a catalog there already (it never makes an empty one).
  if (!read_only) FATHOM_RETURN_IF_ERROR(pg::OpenPgCatalog(uri, true).status());
  FATHOM_ASSIGN_OR_RETURN(pg::Session session, pg::OpenPgCatalog(uri, read_only));
  return std::unique_ptr<JournalDb>(new PgJournal(std::move(session)));
}

}  // namespace fathom::policy
