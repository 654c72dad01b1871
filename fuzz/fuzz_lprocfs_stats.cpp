// fuzz_lprocfs_stats — Lustre's generic lprocfs stats text (md_stats, stats, exports/*/stats)
// on arbitrary input: never a crash or a read outside it; every problem names a line of it;
// a counter read with figures has its minimum and maximum, and its sum when it has a sumsq.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stats_text_checks.h"

using fathom::fuzz::Violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const fathom::lustre::LprocfsStats s = fathom::lustre::ParseLprocfsStats(text);
  fathom::fuzz::ProblemsNameLinesOf(text, s.problems);
  for (const auto& [name, c] : s.counters) {
    if (name.empty()) Violated("a counter without a name");
    if (c.has_sum != c.has_range) Violated("a sum without min and max");
    if (c.has_sumsq && !c.has_sum) Violated("a sumsq without a sum");
  }
  return 0;
}
