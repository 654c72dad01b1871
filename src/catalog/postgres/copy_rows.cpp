#include "catalog/postgres/copy_rows.h"

#include <endian.h>

namespace fathom::catalog::pg {
namespace {

// Signature, flags (no OIDs), header extension length (none).
constexpr char kHeader[] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
// A field count of -1 ends the data.
constexpr char kTrailer[] = "\377\377";

}  // namespace

std::string_view CopyRows::Header() { return {kHeader, sizeof kHeader - 1}; }
std::string_view CopyRows::Trailer() { return {kTrailer, sizeof kTrailer - 1}; }

void CopyRows::Put16(uint16_t value) {
  const uint16_t big = htobe16(value);
  body_.append(reinterpret_cast<const char*>(&big), sizeof big);
}

void CopyRows::Put32(uint32_t value) {
  const uint32_t big = htobe32(value);
  body_.append(reinterpret_cast<const char*>(&big), sizeof big);
}

void CopyRows::StartRow(int fields) {
  Put16(static_cast<uint16_t>(fields));
  ++rows_;
}

void CopyRows::AddInt(int64_t value) {
  Put32(8);
  const uint64_t big = htobe64(static_cast<uint64_t>(value));
  body_.append(reinterpret_cast<const char*>(&big), sizeof big);
}

void CopyRows::AddBytes(std::string_view value) {
  Put32(static_cast<uint32_t>(value.size()));
  body_.append(value);
}

void CopyRows::AddNull() { Put32(0xffffffffU); }

}  // namespace fathom::catalog::pg
