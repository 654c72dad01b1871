// Catalog::Open: the backend a URI names.
#include "catalog/catalog_impl.h"
#include "catalog/postgres/pg_backend.h"
#include "catalog/postgres/pg_uri.h"
#include "catalog/sqlite_backend.h"

namespace fathom::catalog {

Result<std::unique_ptr<Catalog>> Catalog::Open(const CatalogOptions& options) {
  std::string_view uri = options.uri;
  if (pg::IsPostgresUri(uri)) {
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<CatalogBackend> backend,
                            OpenPostgresBackend(options.uri, options.read_only));
    CatalogOptions shown = options;  // CatalogInfo::uri never shows the password
    shown.uri = backend->location();
    return MakeCatalog(std::move(backend), shown);
  }
  if (uri.starts_with("sqlite:")) uri.remove_prefix(7);
  if (uri.empty()) {
    return Status::Error("catalog URI '" + options.uri + "' names no file: give sqlite:FILE or FILE");
  }
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<CatalogBackend> backend,
                          OpenSqliteBackend(std::string(uri), options.read_only));
  return MakeCatalog(std::move(backend), options);
}

}  // namespace fathom::catalog
