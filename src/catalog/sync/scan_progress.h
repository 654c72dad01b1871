// scan_progress.h — what `fathom scan` shows on a terminal while it runs: entries so far, the
// rate, directories left, the time, and an ETA when an earlier scan left the trees' sizes in
// the catalog. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/scan/scanner.h"
#include "fathom/catalog.h"

namespace fathom::catalog {

// The names the catalog holds below `roots` (the roots themselves not counted) from its kept
// totals: what a new scan of them may expect to list. 0 when it holds none of them.
uint64_t ExpectedEntries(Catalog& catalog, const std::vector<std::string>& roots);

// One progress line, without line control: "scanned 1200 entries (600/s), 3 directories left,
// 2 s" and, when `expected` > 0 and a rate is known, ", about 14 s left" (or ", past the 1000
// entries of the last scan" once the scan has listed more than that).
std::string ScanProgressLine(const scan::ScanProgress& progress, uint64_t expected);

}  // namespace fathom::catalog
