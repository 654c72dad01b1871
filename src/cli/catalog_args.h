// catalog_args.h — what the catalog's query commands (du, report, undelete) share: the
// --catalog option and opening the catalog for reading only.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::cli {

// Adds --catalog URI (default $FATHOM_CATALOG, else fathom-catalog.db).
void AddCatalogOption(CLI::App& cmd, std::string& uri);

// Opens `uri` read-only; the error names the catalog and how to make one.
Result<std::unique_ptr<catalog::Catalog>> OpenCatalogForQueries(const std::string& uri);

}  // namespace fathom::cli
