// fuzz_h5_trace — the HDF5 trace decoder (fathom h5) on arbitrary bytes.
//
// Inputs whose first byte is odd are wrapped as the payload of one well-formed frame after a
// valid file header, so that the fuzzer reaches the record decoder past the checksum; the
// others are decoded as whole files. Decoding must never read outside the input; what it
// accepts must hold together: a call made from another has a smaller number, a regular
// selection has as many values per dimension as it has dimensions, and the JSON lines hold
// one line per record.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fathom/h5prov.h"
#include "framed_input.h"
#include "h5prov/h5_format.h"

namespace {

using fathom::fuzz::FileOfInput;
using fathom::fuzz::HeaderOf;
using fathom::fuzz::Violated;
namespace f = fathom::h5prov::format;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input =
      FileOfInput(data, size, HeaderOf(f::kFileHeaderSize, f::PutFileHeader), f::kFrameMagic);
  auto trace = fathom::h5prov::DecodeTrace(input, "fuzz.fh5");
  if (!trace.ok()) return 0;
  for (const auto& c : trace->calls) {
    if (c.parent != 0 && c.parent >= c.seq) Violated("a call made from a later one");
    const auto& s = c.selection;
    if (s.kind == "regular" && (s.start.empty() || s.stride.size() != s.start.size() ||
                                s.count.size() != s.start.size() || s.block.size() != s.start.size())) {
      Violated("a regular selection whose dimensions disagree");
    }
  }
  const std::string lines = fathom::h5prov::TraceJsonLines(*trace);
  size_t n = 0;
  for (char ch : lines) n += ch == '\n' ? 1 : 0;
  const size_t records = (trace->has_process ? 1 : 0) + trace->objects.size() + trace->calls.size() +
                         trace->closed.size() + 1 + trace->problems.size();
  if (n != records) Violated("the JSON lines are not one per record");
  return 0;
}
