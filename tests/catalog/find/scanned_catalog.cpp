#include "catalog/find/scanned_catalog.h"

#include <gtest/gtest.h>

#include <atomic>

#include "catalog/sync/catalog_scan.h"

namespace fathom::catalog::find_testing {

ScannedCatalog::ScannedCatalog(const std::string& root) {
  CatalogOptions options;
  options.uri = dir_ / "catalog.db";
  auto opened = Catalog::Open(options);
  EXPECT_TRUE(opened.ok()) << opened.status().message();
  if (!opened.ok()) return;
  c_ = std::move(opened.value());
  std::atomic<bool> stop{false};
  auto scanned = ScanIntoCatalog(*c_, {root}, {}, {}, stop);
  EXPECT_TRUE(scanned.ok()) << scanned.status().message();
}

}  // namespace fathom::catalog::find_testing
