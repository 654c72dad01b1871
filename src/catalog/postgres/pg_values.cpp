#include "catalog/postgres/pg_values.h"

#include <endian.h>

#include <cassert>
#include <cstdlib>
#include <cstring>

namespace fathom::catalog::pg {

Param Param::Int(int64_t value) {
  Param param(Type::kInt, nullptr, 8, false);
  const uint64_t big = htobe64(static_cast<uint64_t>(value));
  std::memcpy(param.int_, &big, sizeof big);
  return param;
}

Param Param::Bytes(std::string_view value) {
  return Param(Type::kBytes, value.data(), static_cast<int>(value.size()), false);
}

Param Param::Text(std::string_view value) {
  return Param(Type::kText, value.data(), static_cast<int>(value.size()), false);
}

Param Param::Null(Type type) { return Param(type, nullptr, 0, true); }

const char* Param::data() const {
  if (null_) return nullptr;
  return type_ == Type::kInt ? int_ : data_;
}

int64_t Rows::Int(int row, int column) const {
  const char* value = Pq().PQgetvalue(result_.get(), row, column);
  switch (Pq().PQgetlength(result_.get(), row, column)) {
    case 0:
      return 0;  // NULL
    case 2: {
      uint16_t v;
      std::memcpy(&v, value, sizeof v);
      return static_cast<int16_t>(be16toh(v));
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, value, sizeof v);
      return static_cast<int32_t>(be32toh(v));
    }
    default: {
      assert(Pq().PQgetlength(result_.get(), row, column) == 8 && "Rows::Int on a non-integer column");
      uint64_t v;
      std::memcpy(&v, value, sizeof v);
      return static_cast<int64_t>(be64toh(v));
    }
  }
}

int64_t Rows::affected() const {
  const char* tuples = Pq().PQcmdTuples(result_.get());
  return tuples[0] != '\0' ? std::strtoll(tuples, nullptr, 10) : 0;
}

}  // namespace fathom::catalog::pg
