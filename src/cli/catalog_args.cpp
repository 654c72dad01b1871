#include "cli/catalog_args.h"

namespace fathom::cli {

void AddCatalogOption(CLI::App& cmd, std::string& uri) {
  uri = catalog::CatalogOptions{}.uri;
  cmd.add_option("--catalog", uri,
                 "The catalog: FILE or sqlite:FILE, or postgresql://USER@HOST/DB (default: "
                 "$FATHOM_CATALOG, else fathom-catalog.db)")
      ->envname("FATHOM_CATALOG")
      ->type_name("URI");
}

Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const std::string& uri, bool read_only) {
  catalog::CatalogOptions options;
  options.uri = uri;
  options.read_only = read_only;
  auto opened = catalog::Catalog::Open(options);
  if (!opened.ok()) {
    return Status::Error("cannot open the catalog " + uri + ": " + opened.status().message() +
                         " (name another with --catalog or FATHOM_CATALOG)");
  }
  return std::move(opened).value();
}

}  // namespace fathom::cli
