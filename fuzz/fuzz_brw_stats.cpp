// fuzz_brw_stats — Lustre's brw_stats text on arbitrary input: never a crash or a read outside
// it; every problem names a line of it; every row belongs to a named block.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "lustre/stats_text.h"

namespace {
[[noreturn]] void Violated(const char* what) {
  std::fprintf(stderr, "property violated: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const fathom::lustre::BrwStats b = fathom::lustre::ParseBrwStats(text);
  size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  for (const auto& p : b.problems) {
    if (p.line == 0 || p.line > lines) Violated("a problem outside the text's lines");
  }
  for (const auto& [name, rows] : b.blocks) {
    if (name.empty() && !rows.empty()) Violated("rows in a block without a name");
  }
  return 0;
}
