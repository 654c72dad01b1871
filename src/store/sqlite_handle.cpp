#include "store/sqlite_handle.h"

#include <cctype>
#include <cerrno>
#include <cstring>

#include "store/store_files.h"

namespace fathom::store {
namespace {

// SQLite's URI form of a file name: every byte but [A-Za-z0-9/._-] %-escaped.
std::string FileUri(const std::string& path, std::string_view query) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) != 0 || c == '/' || c == '.' || c == '_' || c == '-') {
      uri.push_back(static_cast<char>(c));
    } else {
      uri.push_back('%');
      uri.push_back(kHex[c >> 4]);
      uri.push_back(kHex[c & 15]);
    }
  }
  uri.push_back('?');
  uri.append(query);
  return uri;
}

// Whether a failure of `rc` on the store may come of a read-only file system: SQLite then
// reports a file it could not create (CANTOPEN, ENOENT) or a read-only database.
bool MayBeReadOnlyMedia(int rc) {
  switch (rc & 0xff) {
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_PERM:
      return true;
    default:
      return false;
  }
}

// Why the operation failed and what to do about it, for the primary result code.
std::string Cause(const SqliteFileKind& kind, int rc, int sys_errno) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return "disk full: " + std::string(kind.no_space) + "; " + std::string(kind.no_space_remedy);
    case SQLITE_IOERR:
      if (sys_errno == ENOSPC || sys_errno == EDQUOT) {
        return "disk full: " + std::string(kind.no_space) + " (" +
               std::string(std::strerror(sys_errno)) + "); " + std::string(kind.no_space_remedy);
      }
      return "I/O error" + (sys_errno != 0 ? ": " + std::string(std::strerror(sys_errno)) : "") +
             "; " + std::string(kind.io_remedy);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return std::string(kind.locked);
    case SQLITE_CORRUPT:
      return std::string(kind.damaged);
    case SQLITE_NOTADB:
      return std::string(kind.not_a_database);
    case SQLITE_READONLY:
      return std::string(kind.read_only);
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return "permission denied";
    case SQLITE_CANTOPEN:
      return "cannot open the file" +
             (sys_errno != 0 ? ": " + std::string(std::strerror(sys_errno)) : "") +
             "; check that its directory exists and is accessible (readers also need to create "
             "the -shm file beside it)";
    case SQLITE_NOMEM:
      return "out of memory";
    default:
      return sqlite3_errstr(rc);
  }
}

}  // namespace

const SqliteFileKind kEventStoreFile = {
    .noun = "event store",
    .no_space = "no space left on the file system holding the store",
    .no_space_remedy = "free space there, or bound the store with --max-events/--max-age",
    .io_remedy = "check the device and file system holding the store",
    .locked = "the store stayed locked by another connection past the busy timeout; is a second "
              "`fathom watch --store` writing to the same file?",
    .damaged = "the file is damaged (corrupt); `fathom store verify` reports what is damaged and "
               "`fathom store recover` copies every readable event into a new store",
    .not_a_database = "not a fathom event store (not a SQLite database)",
    .read_only = "the store cannot be written (read-only file, directory or file system); check "
                 "permissions",
    .read_only_fs = "the file system holding the store is mounted read-only",
    .read_only_fs_remedy = "`fathom events --store` can still read it",
};

Status SqliteError(const SqliteFileKind& kind, const std::string& path, sqlite3* db, int rc,
                   std::string_view what) {
  int sys_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
  if ((rc & 0xff) == SQLITE_FULL && sys_errno == 0) sys_errno = ENOSPC;
  std::string cause;
  if (sys_errno == EROFS || (MayBeReadOnlyMedia(rc) && OnReadOnlyFileSystem(path))) {
    sys_errno = EROFS;
    cause = std::string(kind.read_only_fs) + " (" + std::strerror(EROFS) +
            "): nothing can be written there, not even the -wal and -shm files beside it; " +
            std::string(kind.read_only_fs_remedy);
  } else {
    cause = Cause(kind, rc, sys_errno);
  }
  std::string message = std::string(kind.noun) + " " + path + ": " + std::string(what) + ": " + cause;
  const char* detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  message += " (sqlite: ";
  message += detail;
  message += ")";
  std::error_code code;
  if (sys_errno != 0) code = std::error_code(sys_errno, std::generic_category());
  return Status::Error(std::move(message), code);
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

std::string Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (text == nullptr) return {};
  return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

void Statement::ColumnText(int column, std::string& out) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (text == nullptr) {
    out.clear();
  } else {
    out.assign(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
  }
}

Result<Connection> Connection::Open(const std::string& path, int flags, int busy_timeout_ms,
                                    std::string_view uri_query, const SqliteFileKind& kind) {
  sqlite3* db = nullptr;
  int rc = uri_query.empty()
               ? sqlite3_open_v2(path.c_str(), &db, flags, nullptr)
               : sqlite3_open_v2(FileUri(path, uri_query).c_str(), &db, flags | SQLITE_OPEN_URI,
                                 nullptr);
  Connection conn(path, kind, db);  // owns db even when opening failed
  if (rc != SQLITE_OK) return conn.Error(rc, "opening failed");
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return conn;
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    path_ = std::move(other.path_);
    kind_ = other.kind_;
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

Result<Statement> Connection::Prepare(std::string_view sql, std::string_view what) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  return Statement(stmt);
}

Status Connection::Exec(const char* sql, std::string_view what) const {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  return Status::Ok();
}

Result<int64_t> Connection::QueryInt(const char* sql, std::string_view what,
                                     int64_t fallback) const {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  Statement stmt(raw);
  rc = sqlite3_step(raw);
  if (rc == SQLITE_ROW) return stmt.ColumnIsNull(0) ? fallback : stmt.ColumnInt(0);
  if (rc == SQLITE_DONE) return fallback;
  return Error(rc, what);
}

Result<int64_t> Connection::QueryInt(Statement& stmt, std::string_view what,
                                     int64_t fallback) const {
  int rc = sqlite3_step(stmt.get());
  int64_t value = fallback;
  if (rc == SQLITE_ROW) {
    if (!stmt.ColumnIsNull(0)) value = stmt.ColumnInt(0);
  } else if (rc != SQLITE_DONE) {
    Status error = Error(rc, what);
    stmt.Reset();
    return error;
  }
  stmt.Reset();
  return value;
}

Status Connection::StepDone(Statement& stmt, std::string_view what) const {
  int rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_DONE) {
    Status error = Error(rc, what);
    stmt.Reset();
    return error;
  }
  stmt.Reset();
  return Status::Ok();
}

void Connection::RollbackIfOpen() const {
  if (db_ != nullptr && sqlite3_get_autocommit(db_) == 0) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

}  // namespace fathom::store
