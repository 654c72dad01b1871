#include "catalog/postgres/pg_uri.h"

#include "catalog/postgres/libpq_api.h"

#include <string>

namespace fathom::catalog::pg {
namespace {

constexpr std::string_view kForm = "postgresql://USER@HOST:PORT/DATABASE";

}  // namespace

bool IsPostgresUri(std::string_view uri) {
  return uri.starts_with("postgresql://") || uri.starts_with("postgres://");
}

Status CheckUri(std::string_view uri) {
  if (!IsPostgresUri(uri)) {
    return Status::Error("catalog URI: not a PostgreSQL URI (it starts with neither "
                         "postgresql:// nor postgres://): write it as " + std::string(kForm));
  }
  FATHOM_RETURN_IF_ERROR(LoadLibPq().status());
  char* error = nullptr;
  PQconninfoOption* options = Pq().PQconninfoParse(std::string(uri).c_str(), &error);
  if (options == nullptr) {
    std::string message = error != nullptr ? error : "out of memory";
    Pq().PQfreemem(error);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Status::Error("catalog URI: libpq cannot read it (" + message + "): write it as " +
                         std::string(kForm) + "[?sslmode=...]");
  }
  Pq().PQconninfoFree(options);
  return Status::Ok();
}

}  // namespace fathom::catalog::pg
