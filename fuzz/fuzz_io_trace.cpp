// fuzz_io_trace — the I/O trace decoder (fathom io) on arbitrary bytes.
//
// Inputs whose first byte is odd are wrapped as the payload of one well-formed frame after a
// valid file header, so that the fuzzer reaches the record decoder past the checksum; the
// others are decoded as whole files. Decoding must never read outside the input; what it
// accepts must hold together: every run has a count of at least 1 and ends no earlier than it
// starts, and its expansion gives exactly that many operations with the run's offsets.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fathom/iotrace.h"
#include "framed_input.h"
#include "iotrace/trace_format.h"

namespace {

using fathom::fuzz::FileOfInput;
using fathom::fuzz::HeaderOf;
using fathom::fuzz::Violated;
namespace f = fathom::iotrace::format;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input =
      FileOfInput(data, size, HeaderOf(f::kFileHeaderSize, f::PutFileHeader), f::kFrameMagic);
  auto trace = fathom::iotrace::DecodeTrace(input, "fuzz.fio");
  if (!trace.ok()) return 0;
  for (const auto& r : trace->runs) {
    if (r.count < 1) Violated("a run of no operation");
    if (r.t_last < r.t_first) Violated("a run that ends before it starts");
    if (r.count - 1 > r.t_last - r.t_first) Violated("more operations than nanoseconds in a run");
  }
  if (trace->Operations() > 100'000) return 0;  // expansion is linear in the operations
  const auto ops = fathom::iotrace::Expand(*trace);
  if (ops.size() != trace->Operations()) Violated("the expansion has another number of operations");
  (void)fathom::iotrace::TraceJson(*trace, false);
  return 0;
}
