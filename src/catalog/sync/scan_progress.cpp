#include "catalog/sync/scan_progress.h"

#include <cmath>
#include <cstdio>

namespace fathom::catalog {

uint64_t ExpectedEntries(Catalog& catalog, const std::vector<std::string>& roots) {
  uint64_t expected = 0;
  for (const std::string& root : roots) {
    auto node = catalog.Stat(root);
    if (!node.ok() || !node.value()) continue;
    auto totals = catalog.Subtree(node.value()->id);
    if (totals.ok() && totals->entries() > 0) expected += totals->entries() - 1;
  }
  return expected;
}

std::string ScanProgressLine(const scan::ScanProgress& progress, uint64_t expected) {
  const double seconds = std::chrono::duration<double>(progress.elapsed).count();
  const double rate = seconds > 0 ? static_cast<double>(progress.entries) / seconds : 0.0;
  char line[256];
  int n = std::snprintf(line, sizeof line, "scanned %llu entries (%.0f/s), %llu directories left, %.0f s",
                        static_cast<unsigned long long>(progress.entries), rate,
                        static_cast<unsigned long long>(progress.directories_pending), seconds);
  std::string text(line, static_cast<size_t>(n));
  if (expected == 0 || rate <= 0) return text;
  if (progress.entries > expected) {
    std::snprintf(line, sizeof line, ", past the %llu entries of the last scan", static_cast<unsigned long long>(expected));
  } else {
    std::snprintf(line, sizeof line, ", about %.0f s left", std::ceil(static_cast<double>(expected - progress.entries) / rate));
  }
  return text + line;
}

}  // namespace fathom::catalog
