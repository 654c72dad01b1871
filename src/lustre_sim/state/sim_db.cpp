#include "lustre_sim/state/sim_db.h"

#include "lustre_sim/state/sim_state.h"

#include <cerrno>
#include <utility>

namespace fathom::lustre_sim {

SimStmt& SimStmt::operator=(SimStmt&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

void SimStmt::Bind(int index, const lustre::Fid& fid) {
  unsigned char blob[16];
  for (int i = 0; i < 8; ++i) blob[i] = static_cast<unsigned char>(fid.seq >> (56 - 8 * i));
  for (int i = 0; i < 4; ++i) blob[8 + i] = static_cast<unsigned char>(fid.oid >> (24 - 8 * i));
  for (int i = 0; i < 4; ++i) blob[12 + i] = static_cast<unsigned char>(fid.ver >> (24 - 8 * i));
  sqlite3_bind_blob(stmt_, index, blob, sizeof(blob), SQLITE_TRANSIENT);
}

std::string SimStmt::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

lustre::Fid SimStmt::FidAt(int column) const {
  lustre::Fid fid;
  const auto* blob = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, column));
  if (blob == nullptr || sqlite3_column_bytes(stmt_, column) != 16) return fid;
  for (int i = 0; i < 8; ++i) fid.seq = fid.seq << 8 | blob[i];
  for (int i = 0; i < 4; ++i) fid.oid = fid.oid << 8 | blob[8 + i];
  for (int i = 0; i < 4; ++i) fid.ver = fid.ver << 8 | blob[12 + i];
  return fid;
}

SimDb& SimDb::operator=(SimDb&& other) noexcept {
  if (this != &other) {
    data_version_ = SimStmt();
    sqlite3_close_v2(db_);
    path_ = std::move(other.path_);
    db_ = std::exchange(other.db_, nullptr);
    data_version_ = std::move(other.data_version_);
  }
  return *this;
}

Result<SimDb> SimDb::Open(const std::string& path, bool create) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  SimDb db(path, raw);
  if (rc != SQLITE_OK) {
    return db.Error(rc, "cannot open the state database (check the state directory exists and is writable)");
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 10000);
  FATHOM_RETURN_IF_ERROR(db.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;"));
  return db;
}

Result<SimStmt> SimDb::Prepare(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                              &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "cannot prepare \"" + std::string(sql) + "\"");
  return SimStmt(stmt);
}

Status SimDb::Exec(const char* sql) const {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, std::string("cannot run \"") + sql + "\"");
  return Status::Ok();
}

Result<bool> SimDb::Step(SimStmt& stmt) const {
  int rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    stmt.Reset();
    return false;
  }
  Status error = Error(rc, std::string("cannot run \"") + sqlite3_sql(stmt.get()) + "\"");
  stmt.Reset();
  return error;
}

Status SimDb::Run(SimStmt& stmt) const {
  FATHOM_ASSIGN_OR_RETURN(bool row, Step(stmt));
  if (row) stmt.Reset();
  return Status::Ok();
}

Result<int64_t> SimDb::DataVersion() {
  if (data_version_.get() == nullptr) {
    FATHOM_ASSIGN_OR_RETURN(data_version_, Prepare("PRAGMA data_version"));
  }
  FATHOM_ASSIGN_OR_RETURN(bool row, Step(data_version_));
  int64_t version = row ? data_version_.Int(0) : 0;
  data_version_.Reset();
  return version;
}

void SimDb::Rollback() const {
  if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

Status SimDb::Error(int rc, std::string_view what) const {
  int primary = rc & 0xff;
  int err = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? EBUSY
            : primary == SQLITE_FULL                           ? ENOSPC
            : primary == SQLITE_READONLY || primary == SQLITE_PERM ? EACCES
                                                                   : EIO;
  std::string message = "lustre-sim state " + path_ + ": " + std::string(what) + " (sqlite: " +
                        (db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)) + ")";
  if (err == EBUSY) message += "; another process holds the state locked, retry";
  return Status::Error(std::move(message), std::error_code(err, std::generic_category()));
}

Status ErrnoStatus(int err, std::string message) {
  return Status::Error(std::move(message), std::error_code(err, std::generic_category()));
}

int StatusErrno(const Status& status) {
  if (status.ok()) return 0;
  if (status.code() && status.code().category() == std::generic_category()) return status.code().value();
  return EIO;
}

}  // namespace fathom::lustre_sim
