// catalog_batch.h — the catalog's change rules (Put, Remove, Move and their freshness, the
// statistics that follow every change) over any CatalogBackend: one write transaction whose
// statistics deltas are accumulated in memory and written at Commit().
//
// The batch borrows the backend (which must outlive it) and is used from one thread. After an
// operation fails the batch refuses further work: drop it (its transaction is rolled back).
#pragma once

#include <chrono>
#include <memory>

#include "catalog/catalog_backend.h"
#include "fathom/catalog.h"

namespace fathom::catalog {

Result<std::unique_ptr<Batch>> BeginBatch(CatalogBackend& backend, std::chrono::seconds retention);

}  // namespace fathom::catalog
