// pg_values.h — statement parameters and result rows, both in PostgreSQL's binary format.
//
// Nothing is quoted or escaped: an int64 travels as an 8-byte big-endian bigint, a byte
// string as bytea (any bytes: NUL, newlines, invalid UTF-8 — file names are bytes, so the
// catalog keeps names in bytea columns), a text as the bytes of a text value (the server
// refuses NUL and anything not valid in the database's encoding, so text is for names the
// catalog makes itself, never for file names).
//
// A Param refers to the caller's bytes without copying them: they must outlive the call it
// is passed to. Rows owns its result and may outlive the session that produced it. Both are
// values, safe to use from one thread at a time.
#pragma once

#include "catalog/postgres/libpq_api.h"

#include <cstdint>
#include <string_view>

#include "catalog/postgres/pg_handle.h"

namespace fathom::catalog::pg {

// The parameter types, as PostgreSQL's type OIDs (pg_type.oid).
enum class Type : Oid { kInt = 20 /* bigint */, kBytes = 17 /* bytea */, kText = 25 /* text */ };

class Param {
 public:
  static Param Int(int64_t value);
  static Param Bytes(std::string_view value);
  static Param Text(std::string_view value);
  static Param Null(Type type);

  Type type() const { return type_; }
  bool null() const { return null_; }
  // The binary value (nullptr for NULL) and its length in bytes.
  const char* data() const;
  int length() const { return length_; }

 private:
  Param(Type type, const char* data, int length, bool null)
      : type_(type), data_(data), length_(length), null_(null) {}
  Type type_;
  const char* data_;  // the caller's bytes; an Int's are in int_
  int length_;
  bool null_;
  char int_[8] = {};
};

// The rows of a statement's result, every column in binary.
class Rows {
 public:
  explicit Rows(PgResult result) : result_(std::move(result)) {}

  int size() const { return Pq().PQntuples(result_.get()); }
  int columns() const { return Pq().PQnfields(result_.get()); }
  bool IsNull(int row, int column) const { return Pq().PQgetisnull(result_.get(), row, column) != 0; }
  // A column's type (PostgreSQL's type OID; Type's values for bigint, bytea and text).
  Oid type(int column) const { return Pq().PQftype(result_.get(), column); }
  // The value of a smallint, integer or bigint column (NULL reads 0). Cast other types in the
  // SQL: sum() of a bigint is a numeric, so write sum(x)::bigint.
  int64_t Int(int row, int column) const;
  // The bytes of a bytea or text column, valid while this Rows lives.
  std::string_view Bytes(int row, int column) const {
    return {Pq().PQgetvalue(result_.get(), row, column),
            static_cast<size_t>(Pq().PQgetlength(result_.get(), row, column))};
  }
  // How many rows an INSERT, UPDATE, DELETE or COPY touched (0 for other statements).
  int64_t affected() const;

 private:
  PgResult result_;
};

}  // namespace fathom::catalog::pg
