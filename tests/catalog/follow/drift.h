// drift.h — every difference between a catalog and the file system below a root, as
// `fathom catalog verify` prints them: what the follower tests expect to be empty.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/sync/catalog_verify.h"

namespace fathom::catalog {

inline std::vector<std::string> Drift(Catalog& catalog, const std::string& root) {
  std::vector<std::string> out;
  auto summary = VerifyCatalog(catalog, root, {}, [&](const Difference& d) {
    out.push_back(FormatDifference(d));
  });
  EXPECT_TRUE(summary.ok()) << summary.status().message();
  return out;
}

}  // namespace fathom::catalog
