// copy_rows.h — rows encoded in PostgreSQL's binary COPY format, for bulk inserts through
// Session::Copy (COPY table (columns) FROM STDIN (FORMAT binary)): one stream per batch, no
// round trip per row, no quoting.
//
// The binary format carries no types: each value must match its column's type exactly
// (AddInt: bigint; AddBytes: bytea, or text for valid text), or the server refuses the COPY.
// A value object; one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fathom::catalog::pg {

class CopyRows {
 public:
  // Starts a row of `fields` values: exactly that many Add* calls follow.
  void StartRow(int fields);
  void AddInt(int64_t value);
  void AddBytes(std::string_view value);
  void AddNull();

  size_t rows() const { return rows_; }
  void Clear() {
    body_.clear();
    rows_ = 0;
  }

  // The COPY stream is Header(), then body(), then Trailer().
  static std::string_view Header();
  const std::string& body() const { return body_; }
  static std::string_view Trailer();

 private:
  void Put16(uint16_t value);
  void Put32(uint32_t value);
  std::string body_;
  size_t rows_ = 0;
};

}  // namespace fathom::catalog::pg
