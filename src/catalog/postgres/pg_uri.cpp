#include "catalog/postgres/pg_uri.h"

#include <libpq-fe.h>

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
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(std::string(uri).c_str(), &error);
  if (options == nullptr) {
    std::string message = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Status::Error("catalog URI: libpq cannot read it (" + message + "): write it as " +
                         std::string(kForm) + "[?sslmode=...]");
  }
  PQconninfoFree(options);
  return Status::Ok();
}

}  // namespace fathom::catalog::pg
