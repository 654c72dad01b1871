// sqlite_backend.h — the catalog's rows in a SQLite file (schema: sqlite_schema.h), through
// statements prepared once per connection. Implements CatalogBackend; owned by its Catalog,
// one thread at a time.
#pragma once

#include <memory>
#include <string>

#include "catalog/catalog_backend.h"

namespace fathom::catalog {

Result<std::unique_ptr<CatalogBackend>> OpenSqliteBackend(const std::string& path, bool read_only);

}  // namespace fathom::catalog
