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

// Adds --as-user USER (root only): answer as that user would see the file system.
void AddAsUserOption(CLI::App& cmd, std::string& user);

// Opens `uri` for the query commands (find, du, report, undelete): as the caller sees the
// file system (catalog::VisibleTo) unless the caller is root, then as `as_user` when given.
Result<std::unique_ptr<catalog::Catalog>> OpenCatalogForQueries(const std::string& uri,
                                                                const std::string& as_user);

}  // namespace fathom::cli
