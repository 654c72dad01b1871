// fuzz_parse_nid — ParseNid on arbitrary text, NID formatting of arbitrary binary NIDs.
//
// An accepted NID prints as text that parses to a NID printing the same; its lnet_nid_t
// and struct lnet_nid forms convert back to it. Any lnet_nid_t that a changelog record may
// carry, and any struct lnet_nid that NidFromLnetNid accepts, print as parseable text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>

#include "lustre/nid.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& nid) {
  std::fprintf(stderr, "property violated: %s: %s\n", what, nid.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom::lustre;
  auto nid = ParseNid(std::string_view(reinterpret_cast<const char*>(data), size));
  if (nid.ok()) {
    const std::string text = FormatNid(*nid);
    auto again = ParseNid(text);
    if (!again.ok() || FormatNid(*again) != text) Fail("printed NID reads back differently", text);
    auto wire = NidFromLnetNid(NidToLnetNid(*nid));
    if (!wire.ok() || FormatNid(*wire) != text) Fail("struct lnet_nid form differs", text);
    if (auto nid4 = NidToNid4(*nid)) {
      auto back = ParseNid4(FormatNid4(*nid4));
      if (!back.ok() || *back != *nid4) Fail("lnet_nid_t form differs", text);
    }
  }
  if (size >= sizeof(uint64_t)) {
    uint64_t nid4;
    std::memcpy(&nid4, data, sizeof nid4);
    const bool valid = nid4 == kNidAny || ((nid4 >> 56) == 0 && (nid4 >> 48) != 0xff);
    if (valid) {
      auto back = ParseNid4(FormatNid4(nid4));
      if (!back.ok() || *back != nid4) Fail("lnet_nid_t does not read back", FormatNid4(nid4));
    }
  }
  if (size >= kLnetNidBytes) {
    auto wire = NidFromLnetNid(std::span<const uint8_t, kLnetNidBytes>(data, kLnetNidBytes));
    if (wire.ok() && !ParseNid(FormatNid(*wire)).ok()) {
      Fail("struct lnet_nid prints unparseable text", FormatNid(*wire));
    }
  }
  return 0;
}
