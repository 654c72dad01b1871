// fuzz_parse_fid — ParseFid on arbitrary text, FormatFid on arbitrary FIDs.
//
// An accepted FID prints as at most kMaxFidText characters that parse back to it; any
// 16 bytes taken as a FID print and parse back the same way.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "lustre/fid.h"

namespace {

void CheckRoundTrip(const fathom::lustre::Fid& fid) {
  const std::string text = fathom::lustre::FormatFid(fid);
  auto back = fathom::lustre::ParseFid(text);
  if (text.size() > fathom::lustre::kMaxFidText || !back.ok() || !(*back == fid)) {
    std::fprintf(stderr, "property violated: FID %s does not read back\n", text.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto fid = fathom::lustre::ParseFid(std::string_view(reinterpret_cast<const char*>(data), size));
  if (fid.ok()) CheckRoundTrip(*fid);
  if (size >= sizeof(lu_fid)) {
    lu_fid raw;
    std::memcpy(&raw, data, sizeof raw);
    CheckRoundTrip(fathom::lustre::FromAbi(raw));
  }
  return 0;
}
