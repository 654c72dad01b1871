// session.h — one connection to the PostgreSQL server holding a catalog: statements with
// binary parameters, prepared statements kept for reuse (run one at a time or many per round
// trip), transactions, bulk COPY, and connecting again after the server went away.
//
// Contract:
//  - Open() connects once and, when it cannot, says which server, database and user, why,
//    and what to do (pg_error.h). Nothing throws; every call returns a Status or Result.
//  - When the connection is lost (the server stopped, restarted or crashed; the network
//    failed), the failing call returns an error with std::errc::connection_aborted and
//    nothing it did is reported done. The next call connects again, up to
//    `reconnect_attempts` times with a doubling pause between tries, and prepares the
//    prepared statements again on the new connection. Calls are never retried by the
//    session itself: a statement whose connection broke may have run.
//  - A transaction open when the connection was lost is gone (the server rolls it back):
//    every call but Rollback() is refused until Rollback() is called, so that the rest of
//    that transaction cannot run outside it on a new connection.
//  - Commit() returns ok only when the server answered that it committed. A transaction an
//    earlier error aborted is rolled back at COMMIT and reported as an error; a connection
//    lost during COMMIT is an error saying that whether it committed is unknown.
//
// Ownership: a Session owns its connection; Statement is a handle valid for the session
// that made it; Rows own their results. Threading: not thread-safe; one thread at a time
// (parallel writers open one session each).
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/postgres/copy_rows.h"
#include "catalog/postgres/pg_handle.h"
#include "catalog/postgres/pg_values.h"
#include "fathom/status.h"

namespace fathom::catalog::pg {

struct SessionOptions {
  int reconnect_attempts = 5;                        // connections tried per call that needs one (>= 1)
  std::chrono::milliseconds first_pause{100};        // between the first two tries, then doubled
  std::chrono::milliseconds max_pause{2000};
  int connect_timeout_s = 10;                        // libpq's connect_timeout, unless the URI sets it
  // Every connection's transactions read-only (default_transaction_read_only, set at each
  // connect, unless the URI sets libpq's options itself): the server refuses writes.
  bool read_only = false;
};

// A statement prepared on a session, by its place in the session's list.
class Statement {
 public:
  Statement() = default;

 private:
  friend class Session;
  explicit Statement(size_t index) : index_(index) {}
  size_t index_ = SIZE_MAX;
};

class Session {
 public:
  // Connects to `uri` (postgresql://... or postgres://..., pg_uri.h).
  static Result<Session> Open(std::string uri, SessionOptions options = {});

  // `catalog database "D" on HOST:PORT as user "U"`, the prefix of this session's errors.
  const std::string& server() const { return server_; }

  // Runs `sql`, one statement or several separated by semicolons, without parameters (DDL,
  // SET). `what` names it in errors ("create the names table").
  Status Exec(std::string_view sql, std::string_view what);

  // Runs one statement with `params` ($1, $2, ...) and returns its rows.
  Result<Rows> Query(std::string_view sql, std::span<const Param> params, std::string_view what);
  Result<Rows> Query(std::string_view sql, std::initializer_list<Param> params, std::string_view what) {
    return Query(sql, std::span<const Param>(params.begin(), params.size()), what);
  }

  // Prepares `sql` with parameters of `types`, to be run any number of times by Run(). The
  // server parses and plans it once per connection.
  Result<Statement> Prepare(std::string_view sql, std::vector<Type> types, std::string_view what);
  // Runs a prepared statement; `params` must match the types it was prepared with.
  Result<Rows> Run(const Statement& statement, std::span<const Param> params);
  Result<Rows> Run(const Statement& statement, std::initializer_list<Param> params) {
    return Run(statement, std::span<const Param>(params.begin(), params.size()));
  }

  // Runs a prepared statement once per group of its parameters in `params` (each group as
  // many as it takes, in order), through libpq's pipeline mode: a round trip per 1000 runs
  // instead of one per run. Returns the rows touched in all. Stops at the first failure (the
  // runs after it in flight are skipped). Outside a transaction each round trip's runs commit
  // together; inside Begin()/Commit() they are part of the transaction like any statement.
  Result<int64_t> RunEach(const Statement& statement, std::span<const Param> params);

  // Whether the session holds a live connection now (false after one was lost, until the next
  // call connects again).
  bool Connected() const { return static_cast<bool>(conn_); }

  Status Begin();
  Status Commit();
  // Ends the open transaction, if any, undoing it; also acknowledges a transaction lost with
  // its connection. Ok when nothing was open.
  Status Rollback();

  // Runs `copy_sql` (COPY table (columns) FROM STDIN (FORMAT binary)) with `rows` as its
  // data; returns how many rows the server stored.
  Result<int64_t> Copy(std::string_view copy_sql, const CopyRows& rows, std::string_view what);

 private:
  struct Prepared {
    std::string sql;
    std::vector<Type> types;
    std::string what;
    uint64_t connection = 0;  // the connection it is prepared on (0: none yet)
  };

  Session(std::string uri, SessionOptions options) : uri_(std::move(uri)), options_(options) {}
  Status Connect(std::string_view what);
  // Ready to run a statement: no lost transaction pending, and connected (again if need be).
  Status Ready(std::string_view what);
  Status Reconnect(std::string_view what);
  bool InTransaction() const;
  Status EnsurePrepared(size_t index);
  // Whether `statement` is this session's and `params` fit its parameters: exactly, or (when
  // `many`) as a whole number of groups of them.
  Status CheckParams(const Statement& statement, std::span<const Param> params, bool many) const;
  // Sends the runs of one round trip of RunEach and reads their results.
  Status RunRoundTrip(size_t index, std::span<const Param> params, bool in_transaction, int64_t& affected);
  // The error of a failed call begun `in_transaction`; forgets the connection when it is lost.
  Status Failed(const PgResult& result, bool in_transaction, std::string_view what);
  // The error of a call whose connection broke (forgotten here), and what that means for it.
  Status Lost(const PgResult& result, std::string_view what, std::string_view consequence);

  std::string uri_;
  SessionOptions options_;
  PgConn conn_;
  std::string server_;
  uint64_t connections_ = 0;        // connections made so far; the current one's number
  bool transaction_lost_ = false;   // a transaction died with its connection, not yet rolled back
  std::vector<Prepared> prepared_;
};

}  // namespace fathom::catalog::pg
