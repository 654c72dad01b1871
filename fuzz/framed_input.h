// framed_input.h — what the fuzzers of fathom's framed files (I/O traces, job files) share:
// a violated property aborts with its name, and arbitrary bytes can be wrapped as the payload
// of one well-formed frame (magic, length, CRC-32; trace_format.h's layout) after a file
// header, so that the fuzzer reaches the decoder past the checksum.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "iotrace/trace_format.h"

namespace fathom::fuzz {

[[noreturn]] inline void Violated(const char* what) {
  std::fprintf(stderr, "property violated: %s\n", what);
  std::abort();
}

// A file's header of `size` bytes, as the tracer writes it (`put`: its PutFileHeader).
inline std::string HeaderOf(size_t size, void (*put)(uint8_t*)) {
  std::string header(size, '\0');
  put(reinterpret_cast<uint8_t*>(header.data()));
  return header;
}

// `header` (the file's header bytes), then one frame of `frame_magic` holding data[0..size).
inline std::string OneFrame(std::string header, uint32_t frame_magic, const uint8_t* data,
                            size_t size) {
  namespace f = fathom::iotrace::format;
  const size_t at = header.size();
  std::string bytes = std::move(header);
  bytes.resize(at + f::kFrameHeaderSize + size, '\0');
  auto* p = reinterpret_cast<uint8_t*>(bytes.data()) + at;
  f::PutU32(p, frame_magic);
  f::PutU32(p + 4, static_cast<uint32_t>(size));
  f::PutU32(p + 8, f::Crc32(data, size));
  if (size > 0) std::copy(data, data + size, p + f::kFrameHeaderSize);
  return bytes;
}

// The fuzzer's input as a file: when its first byte is odd, the rest wrapped as one frame of
// `frame_magic` after `header`; else the bytes as they are (size > 0).
inline std::string FileOfInput(const uint8_t* data, size_t size, std::string header,
                               uint32_t frame_magic) {
  if ((data[0] & 1) == 0) return std::string(reinterpret_cast<const char*>(data), size);
  return OneFrame(std::move(header), frame_magic, data + 1, size - 1);
}

}  // namespace fathom::fuzz
