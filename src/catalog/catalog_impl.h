// catalog_impl.h — the Catalog over any CatalogBackend: queries (paths, walks, selections,
// totals, du's hard-link rule), scans by generation and the end-of-scan removal, recounts.
// Backend-neutral; owns its backend; one thread at a time (catalog.h).
#pragma once

#include <memory>

#include "catalog/catalog_backend.h"
#include "fathom/catalog.h"

namespace fathom::catalog {

std::unique_ptr<Catalog> MakeCatalog(std::unique_ptr<CatalogBackend> backend,
                                     const CatalogOptions& options);

}  // namespace fathom::catalog
