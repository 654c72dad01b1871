// synthetic_catalog.h — a catalog of any size without a file system under it, for the
// benchmarks whose figures depend on the catalog's size (writes, bytes per entry, query
// latency at 100,000 to 10,000,000 entries).
//
// The tree, rooted at `root` (default /bench): every directory holds 100 files
// (file-N.dat, sizes spread up to 1 MiB, seven owners uid 1000-1006) and then 100
// subdirectories (dir-N), filled breadth first until `total` entries exist, as a scan would
// put them: one transaction per 100,000 entries, the kept statistics included.
#pragma once

#include <cstdint>
#include <string>

#include "fathom/catalog.h"

namespace fathom::bench {

void PutSyntheticTree(catalog::Catalog& catalog, int64_t total, const std::string& root = "/bench");

}  // namespace fathom::bench
