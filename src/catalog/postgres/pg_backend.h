// pg_backend.h — the catalog's rows in a PostgreSQL database (schema: pg_schema.h), through
// statements prepared once per connection (again after a reconnection). Implements
// CatalogBackend with the SQLite backend's semantics; a write is one transaction holding the
// writers' advisory lock, so one process writes a catalog at a time. Owned by its Catalog,
// one thread at a time.
#pragma once

#include <memory>
#include <string>

#include "catalog/catalog_backend.h"

namespace fathom::catalog {

// `uri`: postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?PARAM=VALUE&...] (or postgres://).
Result<std::unique_ptr<CatalogBackend>> OpenPostgresBackend(const std::string& uri, bool read_only);

}  // namespace fathom::catalog
