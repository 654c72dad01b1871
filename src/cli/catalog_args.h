// catalog_args.h — the --catalog option every catalog command takes, and opening it.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::cli {

struct CatalogArgs {
  std::string uri;  // as given; "" = $FATHOM_CATALOG, else fathom-catalog.db
};

// Adds --catalog URI (sqlite:FILE, FILE, postgresql://...).
void AddCatalogOption(CLI::App& cmd, CatalogArgs& args);
// The URI the arguments name (the option, else $FATHOM_CATALOG, else the default file).
std::string CatalogUri(const CatalogArgs& args);
Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const CatalogArgs& args, bool read_only);

}  // namespace fathom::cli
