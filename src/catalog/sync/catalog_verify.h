// catalog_verify.h — compares the catalog with the live file system (`fathom catalog
// verify`): every name missing from the catalog, every name it holds that the file system
// does not, and every attribute that differs.
//
// Compared: the object behind each name (st_dev, st_ino), its type and permission bits,
// owner, group, link count, size, blocks, mtime, ctime and a symbolic link's target. Not
// compared: atime (reads change it, and the catalog follows changes, not reads). Below a
// directory missing from the catalog only the directory is reported.
//
// Runs on the calling thread (the scanner's workers are its own).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/scan/scanner.h"
#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog {

struct Difference {
  enum class Kind { kMissing, kExtra, kDiffers };
  Kind kind;
  std::string path;
  std::string detail;     // kDiffers: "size 10 != 12, mtime ... != ..." (catalog != file system)
};

struct VerifySummary {
  uint64_t entries = 0;       // names compared
  uint64_t differences = 0;
  uint64_t problems = 0;      // directories that could not be read
};

// Compares the catalog's subtree at `root` with the file system's; `difference` is called
// for each difference found (in no particular order).
Result<VerifySummary> VerifyCatalog(Catalog& catalog, const std::string& root,
                                    const scan::ScanOptions& options,
                                    const std::function<void(const Difference&)>& difference);

// "missing /a/b", "extra /a/c", "differs /a/d: size 1 != 2" (names printed with escapes for
// bytes that are not printable, so each difference is one line).
std::string FormatDifference(const Difference& d);

}  // namespace fathom::catalog
