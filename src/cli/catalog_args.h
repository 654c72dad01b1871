// catalog_args.h — what the catalog commands (scan, catalog, du, report, undelete, find)
// share: the --catalog option and opening the catalog it names.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::cli {

// Adds --catalog URI (default $FATHOM_CATALOG, else fathom-catalog.db).
void AddCatalogOption(CLI::App& cmd, std::string& uri);

// Opens `uri` (for reading only, or to write); the error names the catalog and how to name
// another.
Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const std::string& uri, bool read_only);

}  // namespace fathom::cli
