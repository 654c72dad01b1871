// catalog_scan.h — fills the catalog from a scan of the live file system: `fathom scan`, the
// subtree rescans of `fathom catalog follow` (OVERFLOW, a new root), and what `catalog
// verify` compares against.
//
// Each root gets a scan generation (Catalog::BeginScan); the scanner's chunks are written by
// the calling thread in large transactions (the catalog has one writer); once every root was
// read to the end, the names under each root that the scan did not see (and nothing observed
// after the scan began) are removed (Catalog::FinishScan). A stopped or failed scan leaves its
// generation unfinished: `resume` continues it, and nothing is removed before a scan ends.
//
// Runs on the calling thread (the scanner's workers are its own); `stop` may be set from any
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/scan/scanner.h"
#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog {

struct CatalogScanOptions {
  scan::ScanOptions scan;
  bool resume = false;               // continue each root's unfinished scan
  uint64_t commit_entries = 65536;   // entries per transaction, at most
};

struct CatalogScanSummary {
  uint64_t entries = 0;              // names written
  uint64_t problems = 0;             // directories or entries that could not be read
  uint64_t removed = 0;              // names the scan did not see, removed at its end
};

struct CatalogScanCallbacks {
  std::function<void(const scan::ScanProgress&)> progress;   // about twice a second
  std::function<void(const scan::ScanProblem&)> problem;     // each problem met
  std::function<void(uint64_t removed)> cleanup;             // while unseen names are removed
};

// Scans `roots` (absolute directories) into `catalog`.
Result<CatalogScanSummary> ScanIntoCatalog(Catalog& catalog, const std::vector<std::string>& roots,
                                           const CatalogScanOptions& options,
                                           const CatalogScanCallbacks& callbacks,
                                           const std::atomic<bool>& stop);

}  // namespace fathom::catalog
