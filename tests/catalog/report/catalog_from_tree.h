// catalog_from_tree.h — fills a catalog from a real directory tree read with lstat(2) and
// readdir(3), one Batch: what a scan would record, so that the query tests compare the
// catalog's answers with tools run on the same tree. One thread.
#pragma once

#include <memory>
#include <string>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::testing {

// The attributes lstat(2) gives for `path` (a symlink's target read too).
Result<catalog::Attrs> LstatAttrs(const std::string& path);

// Opens (creating) the catalog `db` and records `root` in it.
Result<std::unique_ptr<catalog::Catalog>> CatalogOfTree(const std::string& db,
                                                        const std::string& root);

// Records `root` (absolute, no trailing '/') and everything below it, committed.
Status FillCatalogFromTree(catalog::Catalog& catalog, const std::string& root);

}  // namespace fathom::testing
