// fuzz_io_job — the job file decoder (fathom io compress) on arbitrary bytes.
//
// Inputs whose first byte is odd are compressed (Zstandard) and wrapped as the payload of one
// well-formed frame after a valid job file header, so that the fuzzer reaches the stream
// decoder past the checksum and the decompression; those whose first byte is 2 mod 4 are
// wrapped as they are (the decompression on arbitrary bytes); the others are decoded as whole
// files. Decoding must never read outside the input; what it
// accepts must come back the same through another round: encoding it and decoding that gives
// the same traces, and encoding those gives the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <zstd.h>

#include "fathom/iotrace.h"
#include "framed_input.h"
#include "iotrace/job_format.h"

namespace {

using fathom::fuzz::Violated;

std::string Framed(const uint8_t* data, size_t size, bool compress) {
  namespace f = fathom::iotrace::format;
  namespace jf = fathom::iotrace::jobformat;
  std::string header(jf::kFileHeaderSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(header.data());
  std::copy(jf::kFileMagic, jf::kFileMagic + sizeof(jf::kFileMagic), p);
  f::PutU32(p + 8, jf::kVersion);
  static_assert(jf::kFrameHeaderSize == f::kFrameHeaderSize,
                "a job file's frames are laid out as a trace's");
  if (!compress) return fathom::fuzz::OneFrame(std::move(header), jf::kFrameMagic, data, size);
  std::string compressed(ZSTD_compressBound(size), '\0');
  const size_t n = ZSTD_compress(compressed.data(), compressed.size(), data, size, 1);
  if (ZSTD_isError(n) != 0) Violated("Zstandard cannot compress the input");
  return fathom::fuzz::OneFrame(std::move(header), jf::kFrameMagic,
                                reinterpret_cast<const uint8_t*>(compressed.data()), n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input = (data[0] & 3) != 0
                                ? Framed(data + 1, size - 1, (data[0] & 1) != 0)
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
