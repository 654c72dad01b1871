// scan_into.h — what the policy tests share: a tree scanned into the catalog at a URI (made
// there if new), as `fathom scan` does; a failure fails the test.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "catalog/sync/catalog_scan.h"
#include "fathom/catalog.h"

namespace fathom::policy {

inline void ScanInto(const std::string& uri, const std::string& root) {
  catalog::CatalogOptions options;
  options.uri = uri;
  auto writer = catalog::Catalog::Open(options);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  std::atomic<bool> stop{false};
  auto scanned = catalog::ScanIntoCatalog(**writer, {root}, {}, {}, stop);
  ASSERT_TRUE(scanned.ok()) << scanned.status().message();
}

}  // namespace fathom::policy
