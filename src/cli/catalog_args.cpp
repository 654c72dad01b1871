#include "cli/catalog_args.h"

#include <cstdlib>

namespace fathom::cli {

void AddCatalogOption(CLI::App& cmd, CatalogArgs& args) {
  cmd.add_option("--catalog", args.uri,
                 "The catalog: sqlite:FILE, FILE, or postgresql://USER@HOST/DB (default: "
                 "$FATHOM_CATALOG, else fathom-catalog.db)")
      ->type_name("URI");
}

std::string CatalogUri(const CatalogArgs& args) {
  if (!args.uri.empty()) return args.uri;
  if (const char* env = std::getenv("FATHOM_CATALOG"); env != nullptr && *env != '\0') return env;
  return catalog::CatalogOptions{}.uri;
}

Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const CatalogArgs& args, bool read_only) {
  catalog::CatalogOptions options;
  options.uri = CatalogUri(args);
  options.read_only = read_only;
  return catalog::Catalog::Open(options);
}

}  // namespace fathom::cli
