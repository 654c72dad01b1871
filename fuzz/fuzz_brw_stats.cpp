// fuzz_brw_stats — Lustre's brw_stats text on arbitrary input: never a crash or a read outside
// it; every problem names a line of it; every row belongs to a named block.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stats_text_checks.h"

using fathom::fuzz::Violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const fathom::lustre::BrwStats b = fathom::lustre::ParseBrwStats(text);
  fathom::fuzz::ProblemsNameLinesOf(text, b.problems);
  for (const auto& [name, rows] : b.blocks) {
    if (name.empty() && !rows.empty()) Violated("rows in a block without a name");
  }
  return 0;
}
