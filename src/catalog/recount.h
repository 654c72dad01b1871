// recount.h — Recount(): every kept statistic (accounting, subtree totals, the objects with
// several names) recomputed from the entries and names and compared with what is kept;
// `repair` replaces what differs. Backend-neutral; holds one small record per entry in
// memory while it runs. The caller's thread.
#pragma once

#include "catalog/catalog_backend.h"

namespace fathom::catalog {

Result<RecountReport> RecountStatistics(CatalogBackend& backend, bool repair);

}  // namespace fathom::catalog
