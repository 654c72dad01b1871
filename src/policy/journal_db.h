// journal_db.h — the seam between the action journal (action_journal.cpp) and the alerts'
// state (alerts.cpp), each one set of SQL statements, and the catalog's database: SQLite (journal_sqlite.cpp) or PostgreSQL
// (journal_pg.cpp). Statements are written with PostgreSQL's placeholders ($1, $2, ...);
// the SQLite side reads them as its numbered ?1, ?2, ....
//
// Ownership: a JournalDb owns its connection. Threading: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fathom/status.h"

namespace fathom::policy {

// Bytes that may not be text (a path): SQLite blob, PostgreSQL bytea.
struct Blob {
  std::string bytes;
};
// A parameter or a column: NULL, an integer, text, or bytes.
using SqlValue = std::variant<std::monostate, int64_t, std::string, Blob>;
using SqlRow = std::vector<SqlValue>;

int64_t IntOf(const SqlValue& v);              // NULL: 0
// The key of a policy's lock: FNV-1a of its name, in 62 bits.
int64_t PolicyLockKey(std::string_view policy);
// The error when another process runs `policy`.
Status PolicyBusy(std::string_view policy);
std::string TextOf(const SqlValue& v);         // text or bytes; NULL: ""

class JournalDb {
 public:
  virtual ~JournalDb() = default;
  // Makes the journal's tables (policy_runs, policy_actions, alert_state) if they are
  // missing (a writer only).
  virtual Status CreateTables() = 0;
  // Whether the journal's tables exist (a reader of a catalog never run against has none).
  virtual Result<bool> HasTables() = 0;
  // Takes the lock of `policy`'s runs on this catalog, held until this object is destroyed
  // (or its process dies): an error naming the policy when another process holds it.
  virtual Status LockPolicy(std::string_view policy) = 0;
  // A transaction around several statements (one durable write for all of them).
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;
  // Runs one statement; its rows (every column as the statement's types make them).
  virtual Result<std::vector<SqlRow>> Query(std::string_view sql, const std::vector<SqlValue>& params,
                                            std::string_view what) = 0;
};

// The database of the catalog at `catalog_uri` (which must exist). Writes are durable when
// Query returns (SQLite: synchronous=FULL on this connection; PostgreSQL: its commit).
Result<std::unique_ptr<JournalDb>> OpenSqliteJournal(const std::string& path, bool read_only);
Result<std::unique_ptr<JournalDb>> OpenPgJournal(const std::string& uri, bool read_only);
// Either, by the catalog's URI (sqlite:FILE, FILE, postgresql://...); a writer makes the tables.
Result<std::unique_ptr<JournalDb>> OpenJournalDb(const std::string& catalog_uri, bool read_only);

}  // namespace fathom::policy
