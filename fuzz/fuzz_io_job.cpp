// fuzz_io_job — the job file decoder (fathom io compress) on arbitrary bytes.
//
// Inputs whose first byte is odd are wrapped as the payload of one well-formed frame after a
// valid job file header, so that the fuzzer reaches the stream decoder past the checksum; the
// others are decoded as whole files. Decoding must never read outside the input; what it
// accepts must come back the same through another round: encoding it and decoding that gives
// the same traces, and encoding those gives the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fathom/iotrace.h"
#include "iotrace/job_format.h"

namespace {

[[noreturn]] void Violated(const char* what) {
  std::fprintf(stderr, "property violated: %s\n", what);
  std::abort();
}

std::string Framed(const uint8_t* data, size_t size) {
  namespace f = fathom::iotrace::format;
  namespace jf = fathom::iotrace::jobformat;
  std::string bytes(jf::kFileHeaderSize + jf::kFrameHeaderSize + size, '\0');
  auto* p = reinterpret_cast<uint8_t*>(bytes.data());
  std::copy(jf::kFileMagic, jf::kFileMagic + sizeof(jf::kFileMagic), p);
  f::PutU32(p + 8, jf::kVersion);
  f::PutU32(p + jf::kFileHeaderSize, jf::kFrameMagic);
  f::PutU32(p + jf::kFileHeaderSize + 4, static_cast<uint32_t>(size));
  f::PutU32(p + jf::kFileHeaderSize + 8, f::Crc32(data, size));
  if (size > 0) std::copy(data, data + size, p + jf::kFileHeaderSize + jf::kFrameHeaderSize);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input = (data[0] & 1) != 0
                                ? Framed(data + 1, size - 1)
                                : std::string(reinterpret_cast<const char*>(data), size);
  auto traces = fathom::iotrace::ExpandJob(input, "fuzz.fiojob");
  if (!traces.ok()) return 0;
  const std::string once = fathom::iotrace::CompressJob(*traces).bytes;
  auto again = fathom::iotrace::ExpandJob(once, "again.fiojob");
  if (!again.ok()) Violated("a job file made from decoded traces does not decode");
  const std::string twice = fathom::iotrace::CompressJob(*again).bytes;
  if (once != twice) Violated("decode, encode, decode, encode gives other bytes");
  for (const auto& t : *again) {
    for (const auto& r : t.runs) {
      if (r.count < 1) Violated("a run of no operation");
      if (r.count - 1 > r.t_last - r.t_first) Violated("more operations than nanoseconds in a run");
    }
  }
  return 0;
}
