// journal_sqlite.cpp — the action journal's tables in a SQLite catalog file.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "catalog/sqlite_schema.h"
#include "core/unique_fd.h"
#include "policy/journal_db.h"

namespace fathom::policy {
namespace {

constexpr const char* kTables =
    "CREATE TABLE IF NOT EXISTS policy_runs(id INTEGER PRIMARY KEY, policy TEXT NOT NULL,"
    " user TEXT NOT NULL, host TEXT NOT NULL, target TEXT NOT NULL, started INTEGER NOT NULL,"
    " finished INTEGER NOT NULL, state TEXT NOT NULL, actions INTEGER NOT NULL,"
    " failed INTEGER NOT NULL, skipped INTEGER NOT NULL, volume INTEGER NOT NULL,"
    " message TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS policy_actions(id INTEGER PRIMARY KEY, run INTEGER NOT NULL,"
    " policy TEXT NOT NULL, rule TEXT NOT NULL, action TEXT NOT NULL, path BLOB NOT NULL,"
    " destination BLOB NOT NULL, dev INTEGER NOT NULL, ino INTEGER NOT NULL, fid TEXT NOT NULL,"
    " uid INTEGER NOT NULL, gid INTEGER NOT NULL, size INTEGER NOT NULL, state TEXT NOT NULL,"
    " result TEXT NOT NULL, started INTEGER NOT NULL, finished INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS policy_actions_run ON policy_actions(run, state);"
    "CREATE INDEX IF NOT EXISTS policy_actions_path ON policy_actions(path);"
    "CREATE INDEX IF NOT EXISTS policy_runs_policy ON policy_runs(policy, finished);"
    "CREATE TABLE IF NOT EXISTS alert_state(alert TEXT NOT NULL, key BLOB NOT NULL, detail TEXT NOT NULL,"
    " raised INTEGER NOT NULL, notified INTEGER NOT NULL, PRIMARY KEY(alert, key));";

class SqliteJournal final : public JournalDb {
 public:
  explicit SqliteJournal(store::Connection db) : db_(std::move(db)) {}

  // A byte of a lock file beside the catalog, locked with an open-file-description lock
  // (released when the descriptor closes, or the process dies).
  Status LockPolicy(std::string_view policy) override {
    const std::string file = db_.path() + "-policy-locks";
    if (!lock_.valid()) lock_ = UniqueFd(open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock_.valid()) return Status::FromErrno(errno, "cannot open the policies' lock file " + file);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = PolicyLockKey(policy) & ((int64_t{1} << 40) - 1);
    lock.l_len = 1;
    if (fcntl(lock_.get(), F_OFD_SETLK, &lock) == 0) return Status::Ok();
    if (errno == EAGAIN || errno == EACCES) return PolicyBusy(policy);
    return Status::FromErrno(errno, "cannot lock " + file);
  }

  Status CreateTables() override { return db_.Exec(kTables, "making the policy journal's tables"); }

  Result<bool> HasTables() override {
    FATHOM_ASSIGN_OR_RETURN(int64_t n, db_.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'policy_actions'",
                                                    "looking for the policy journal"));
    return n > 0;
  }

  Status Begin() override { return db_.Exec("BEGIN IMMEDIATE", "begin a journal transaction"); }
  Status Commit() override { return db_.Exec("COMMIT", "commit to the policy journal"); }
  void Rollback() override { db_.RollbackIfOpen(); }

  Result<std::vector<SqlRow>> Query(std::string_view sql, const std::vector<SqlValue>& params,
                                    std::string_view what) override {
    std::string text(sql);
    for (char& c : text) {
      if (c == '$') c = '?';
    }
    FATHOM_ASSIGN_OR_RETURN(store::Statement stmt, db_.Prepare(text, what));
    for (size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      const SqlValue& p = params[i];
      if (const auto* n = std::get_if<int64_t>(&p)) stmt.BindInt(index, *n);
      else if (const auto* s = std::get_if<std::string>(&p)) stmt.BindText(index, *s);
      else if (const auto* b = std::get_if<Blob>(&p)) stmt.BindBlob(index, b->bytes);
    }
    std::vector<SqlRow> rows;
    for (;;) {
      const int rc = sqlite3_step(stmt.get());
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return db_.Error(rc, what);
      SqlRow row;
      const int columns = sqlite3_column_count(stmt.get());
      for (int c = 0; c < columns; ++c) {
        switch (sqlite3_column_type(stmt.get(), c)) {
          case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
          case SQLITE_INTEGER: row.emplace_back(stmt.ColumnInt(c)); break;
          case SQLITE_BLOB: row.emplace_back(Blob{std::string(stmt.ColumnBlob(c))}); break;
          default: row.emplace_back(stmt.ColumnText(c)); break;
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  store::Connection db_;
  UniqueFd lock_;
};

}  // namespace

Result<std::unique_ptr<JournalDb>> OpenSqliteJournal(const std::string& path, bool read_only) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    return Status::Error("no catalog at " + path + ": create it with `fathom scan --catalog " + path + "` first");
  }
  FATHOM_ASSIGN_OR_RETURN(store::Connection db, catalog::OpenSqliteCatalog(path, read_only));
  // Each journal write survives a crash of the machine, not only of the process.
  if (!read_only) FATHOM_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous=FULL", "setting up the policy journal"));
  return std::unique_ptr<JournalDb>(new SqliteJournal(std::move(db)));
}

}  // namespace fathom::policy
