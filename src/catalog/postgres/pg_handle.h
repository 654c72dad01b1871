// pg_handle.h — move-only owners of a libpq connection (PGconn) and of a query result
// (PGresult).
//
// A PgConn finishes its connection on destruction (PQfinish); a PgResult clears its result
// (PQclear). A result does not depend on its connection and may outlive it. Neither is
// thread-safe: one thread at a time, like the Session that owns them.
#pragma once

#include <libpq-fe.h>

#include <utility>

namespace fathom::catalog::pg {

class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* result) : result_(result) {}
  ~PgResult() { PQclear(result_); }
  PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  PgResult& operator=(PgResult&& other) noexcept {
    if (this != &other) {
      PQclear(result_);
      result_ = std::exchange(other.result_, nullptr);
    }
    return *this;
  }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  PGresult* get() const { return result_; }
  // libpq returns no result when it runs out of memory or cannot send: that is a failure too.
  ExecStatusType status() const {
    return result_ != nullptr ? PQresultStatus(result_) : PGRES_FATAL_ERROR;
  }

 private:
  PGresult* result_ = nullptr;
};

class PgConn {
 public:
  PgConn() = default;
  explicit PgConn(PGconn* conn) : conn_(conn) {}
  ~PgConn() { PQfinish(conn_); }
  PgConn(PgConn&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}
  PgConn& operator=(PgConn&& other) noexcept {
    if (this != &other) {
      PQfinish(conn_);
      conn_ = std::exchange(other.conn_, nullptr);
    }
    return *this;
  }
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  PGconn* get() const { return conn_; }
  explicit operator bool() const { return conn_ != nullptr; }

 private:
  PGconn* conn_ = nullptr;
};

}  // namespace fathom::catalog::pg
