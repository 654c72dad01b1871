// pg_handle.h — move-only owners of a libpq connection (PGconn) and of a query result
// (PGresult).
//
// A PgConn finishes its connection on destruction (PQfinish); a PgResult clears its result
// (PQclear). A result does not depend on its connection and may outlive it. Neither is
// thread-safe: one thread at a time, like the Session that owns them.
#pragma once

#include "catalog/postgres/libpq_api.h"

#include <utility>

namespace fathom::catalog::pg {

class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* result) : result_(result) {}
  ~PgResult() { Clear(); }
  PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  PgResult& operator=(PgResult&& other) noexcept {
    if (this != &other) {
      Clear();
      result_ = std::exchange(other.result_, nullptr);
    }
    return *this;
  }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  PGresult* get() const { return result_; }
  // libpq returns no result when it runs out of memory or cannot send: that is a failure too.
  ExecStatusType status() const {
    return result_ != nullptr ? Pq().PQresultStatus(result_) : PGRES_FATAL_ERROR;
  }

 private:
  // Only a result libpq made (so libpq is loaded) is cleared.
  void Clear() {
    if (result_ != nullptr) Pq().PQclear(result_);
  }

  PGresult* result_ = nullptr;
};

class PgConn {
 public:
  PgConn() = default;
  explicit PgConn(PGconn* conn) : conn_(conn) {}
  ~PgConn() { Finish(); }
  PgConn(PgConn&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}
  PgConn& operator=(PgConn&& other) noexcept {
    if (this != &other) {
      Finish();
      conn_ = std::exchange(other.conn_, nullptr);
    }
    return *this;
  }
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  PGconn* get() const { return conn_; }
  explicit operator bool() const { return conn_ != nullptr; }

 private:
  void Finish() {
    if (conn_ != nullptr) Pq().PQfinish(conn_);
  }

  PGconn* conn_ = nullptr;
};

}  // namespace fathom::catalog::pg
