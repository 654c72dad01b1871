// Catalog::Open: the backend a URI names.
#include "catalog/catalog_impl.h"
#include "catalog/sqlite_backend.h"

namespace fathom::catalog {

Result<std::unique_ptr<Catalog>> Catalog::Open(const CatalogOptions& options) {
  std::string_view uri = options.uri;
  if (uri.starts_with("postgresql://") || uri.starts_with("postgres://")) {
    return Status::Error("catalog " + options.uri +
                         ": PostgreSQL catalogs are not available in this build; use a SQLite "
                         "catalog (sqlite:FILE or a file name)",
                         std::make_error_code(std::errc::not_supported));
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
