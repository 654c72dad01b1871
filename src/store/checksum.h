// checksum.h — CRC-32C (Castagnoli) of a chunk's bytes, kept in its store row so that a chunk
// altered on disk (a flipped byte inside a path decodes as well as the original) is told
// from a sound one.
//
// The SSE4.2 crc32 instruction when the CPU has it (several GB/s), a table otherwise. Pure
// functions; any thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace fathom::store {

// The CRC-32C of `data` (initial value and final XOR 0xFFFFFFFF: Crc32c("123456789") is
// 0xE3069283).
uint32_t Crc32c(std::string_view data);
// The same by table lookups whatever the CPU (tests compare the two).
uint32_t Crc32cPortable(std::string_view data);

}  // namespace fathom::store
