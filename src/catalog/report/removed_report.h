// removed_report.h — `fathom undelete --list`: the objects the catalog saw removed
// (Catalog::Removed), newest first, as a report table: removal time, last path, type, size,
// owner, and who removed it (uid, job id) where the source says.
//
// Ownership: reads `catalog` during the call. Threads: one, like the Catalog.
#pragma once

#include <cstdint>
#include <string>

#include "catalog/report/report_table.h"
#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog::report {

// Removed objects whose last path is `path` or lies below it ("/" or "": all), removed at or
// after `since_ns`.
Result<Table> RemovedList(Catalog& catalog, const std::string& path, int64_t since_ns);

}  // namespace fathom::catalog::report
