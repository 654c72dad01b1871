// fuzz_mask_expression — ApplyMaskExpression on an arbitrary mask and expression.
//
// Input: one byte choosing the starting mask (MARK only, the default, all types, or none),
// then the expression. An accepted expression yields a mask with MARK set, whose FormatMask
// text applied to an empty mask gives it back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "lustre/changelog_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  constexpr uint64_t kStarts[] = {CHANGELOG_MINMASK, CHANGELOG_DEFMASK, CHANGELOG_ALLMASK, 0};
  const uint64_t start = kStarts[data[0] & 3];
  ++data;
  --size;
  const std::string_view expr(reinterpret_cast<const char*>(data), size);
  auto mask = fathom::lustre::ApplyMaskExpression(start, expr);
  if (!mask.ok()) return 0;
  const std::string text = fathom::lustre::FormatMask(*mask);
  auto again = fathom::lustre::ApplyMaskExpression(0, text);
  if ((*mask & ~CHANGELOG_ALLMASK) || !(*mask & CHANGELOG_MINMASK) || !again.ok() ||
      *again != *mask) {
    std::fprintf(stderr, "property violated: mask 0x%llx prints as '%s'\n",
                 static_cast<unsigned long long>(*mask), text.c_str());
    std::abort();
  }
  return 0;
}
