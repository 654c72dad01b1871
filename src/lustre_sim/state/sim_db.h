// sim_db.h — the SQLite connection and prepared statements behind SimState.
//
// SimDb owns one sqlite3* opened in WAL mode with synchronous=NORMAL and a busy timeout, so
// several processes (the mounted file system, lfs, lctl, the library) share one state file.
// SimStmt owns one prepared statement and resets itself after each use. Errors name the
// state file and carry the errno SimState reports (EIO for a database failure, EBUSY when
// another process held the lock past the timeout). Not thread-safe: SimState serializes.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"
#include "lustre/fid.h"

namespace fathom::lustre_sim {

class SimStmt {
 public:
  SimStmt() = default;
  explicit SimStmt(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~SimStmt() { sqlite3_finalize(stmt_); }
  SimStmt(SimStmt&& other) noexcept : stmt_(other.stmt_) { other.stmt_ = nullptr; }
  SimStmt& operator=(SimStmt&& other) noexcept;
  SimStmt(const SimStmt&) = delete;
  SimStmt& operator=(const SimStmt&) = delete;

  sqlite3_stmt* get() const { return stmt_; }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  void Bind(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
  // Text and blobs are copied (SQLITE_TRANSIENT) so callers may pass temporaries.
  void Bind(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  // A FID as a 16-byte big-endian blob (orders like the FID).
  void Bind(int index, const lustre::Fid& fid);
  void BindNull(int index) { sqlite3_bind_null(stmt_, index); }

  int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }
  std::string Text(int column) const;
  lustre::Fid FidAt(int column) const;
  bool IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

class SimDb {
 public:
  // Opens (creating if `create`) the database file `path`.
  static Result<SimDb> Open(const std::string& path, bool create);

  SimDb() = default;
  ~SimDb() { sqlite3_close_v2(db_); }
  SimDb(SimDb&& other) noexcept : path_(std::move(other.path_)), db_(other.db_) { other.db_ = nullptr; }
  SimDb& operator=(SimDb&& other) noexcept;
  SimDb(const SimDb&) = delete;
  SimDb& operator=(const SimDb&) = delete;

  const std::string& path() const { return path_; }
  Result<SimStmt> Prepare(std::string_view sql) const;
  Status Exec(const char* sql) const;
  // Steps `stmt`: true when a row is ready, false when done (then the statement is reset).
  Result<bool> Step(SimStmt& stmt) const;
  // Steps `stmt` to completion (INSERT/UPDATE/DELETE) and resets it.
  Status Run(SimStmt& stmt) const;
  // The counter SQLite bumps when another connection commits (PRAGMA data_version).
  Result<int64_t> DataVersion();
  int64_t Changes() const { return sqlite3_changes64(db_); }
  void Rollback() const;
  Status Error(int rc, std::string_view what) const;

 private:
  SimDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::string path_;
  sqlite3* db_ = nullptr;
  SimStmt data_version_;
};


}  // namespace fathom::lustre_sim
