// sqlite_handle.h — move-only owners of a SQLite connection and of its prepared statements,
// and the translation of SQLite result codes into Status messages that name the database file
// (an event store by default; another kind of file, such as the catalog, brings its words).
//
// A Connection owns one sqlite3* (closed on destruction); a Statement owns one sqlite3_stmt*
// (finalized on destruction) and must be destroyed before the Connection it came from.
// Neither is thread-safe: one thread at a time, like the EventStore that owns them.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::store {

// The words of the error messages about one kind of database file: what it is called and,
// for each cause, what to do about it.
struct SqliteFileKind {
  std::string_view noun;              // "event store": messages read "<noun> PATH: WHAT: ..."
  std::string_view no_space;          // "no space left on the file system holding the store"
  std::string_view no_space_remedy;   // "free space there, or ..."
  std::string_view io_remedy;         // after an I/O error: "check the device ..."
  std::string_view locked;            // SQLITE_BUSY / SQLITE_LOCKED: cause and remedy
  std::string_view damaged;           // SQLITE_CORRUPT: cause and remedy
  std::string_view not_a_database;    // SQLITE_NOTADB
  std::string_view read_only;         // SQLITE_READONLY: cause and remedy
  std::string_view read_only_fs;      // "the file system holding the store is mounted read-only"
  std::string_view read_only_fs_remedy;  // what can still be done with the file
};

// The event store's words (the default of every Connection).
extern const SqliteFileKind kEventStoreFile;

// "<noun> PATH: WHAT: <cause and remedy> (sqlite: <message>)"; the error_code carries the
// errno behind the failure when there is one (ENOSPC for a full disk, EROFS when the file
// system holding PATH is mounted read-only: that is named as the cause, not the missing or
// unwritable file SQLite reports then).
Status SqliteError(const SqliteFileKind& kind, const std::string& path, sqlite3* db, int rc,
                   std::string_view what);
inline Status SqliteError(const std::string& path, sqlite3* db, int rc, std::string_view what) {
  return SqliteError(kEventStoreFile, path, db, rc, what);
}

class Statement {
 public:
  Statement() = default;
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(Statement&& other) noexcept : stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  sqlite3_stmt* get() const { return stmt_; }
  // Makes the statement ready to run again; bindings are kept.
  void Reset() { sqlite3_reset(stmt_); }

  void BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
  // `value` must outlive the next step (bound without a copy).
  void BindText(int index, std::string_view value) {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  }
  // `value` must outlive the next step (bound without a copy).
  void BindBlob(int index, std::string_view value) {
    sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  }
  int64_t ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }
  std::string ColumnText(int column) const;
  // Assigns the column's text to `out`, reusing its storage.
  void ColumnText(int column, std::string& out) const;
  // Valid until the next step or reset.
  std::string_view ColumnBlob(int column) const {
    const void* data = sqlite3_column_blob(stmt_, column);
    return {static_cast<const char*>(data), static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
  }
  bool ColumnIsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

class Connection {
 public:
  // Opens `path` with sqlite3_open_v2 `flags`; extended result codes on, `busy_timeout_ms`
  // of waiting for locks before SQLITE_BUSY. `uri_query` ("immutable=1") opens it as the URI
  // file:PATH?QUERY instead; errors name `path` either way, in the words of `kind` (which
  // must outlive the connection).
  static Result<Connection> Open(const std::string& path, int flags, int busy_timeout_ms,
                                 std::string_view uri_query = {},
                                 const SqliteFileKind& kind = kEventStoreFile);

  Connection() = default;
  ~Connection() { sqlite3_close_v2(db_); }
  Connection(Connection&& other) noexcept
      : path_(std::move(other.path_)), kind_(other.kind_), db_(other.db_) {
    other.db_ = nullptr;
  }
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  // A statement meant to be reused for the connection's whole life.
  Result<Statement> Prepare(std::string_view sql, std::string_view what) const;
  // Runs one or more statements that return no rows (pragmas, DDL, BEGIN/COMMIT).
  Status Exec(const char* sql, std::string_view what) const;
  // Runs `sql` and returns the first column of its first row (`fallback` if no row).
  Result<int64_t> QueryInt(const char* sql, std::string_view what, int64_t fallback = 0) const;
  // The same on a prepared, bound statement, which is reset afterwards (NULL gives `fallback`).
  Result<int64_t> QueryInt(Statement& stmt, std::string_view what, int64_t fallback = 0) const;
  // Steps `stmt` expecting no row (INSERT/UPDATE/DELETE), then resets it.
  Status StepDone(Statement& stmt, std::string_view what) const;
  // Rolls back the open transaction, if any (after a failure; its own errors are moot).
  void RollbackIfOpen() const;
  // The error of the last failed call on this connection, as a Status.
  Status Error(int rc, std::string_view what) const {
    return SqliteError(*kind_, path_, db_, rc, what);
  }
  const SqliteFileKind& kind() const { return *kind_; }

 private:
  Connection(std::string path, const SqliteFileKind& kind, sqlite3* db)
      : path_(std::move(path)), kind_(&kind), db_(db) {}
  std::string path_;
  const SqliteFileKind* kind_ = &kEventStoreFile;
  sqlite3* db_ = nullptr;
};

}  // namespace fathom::store
