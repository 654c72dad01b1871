// size_format.h — how `fathom du` writes an amount: GNU du's block sizes (-B SIZE, -k, -m,
// -b) and human-readable form (-h), with its rounding (always up) and unit letters.
//
// Contract: FormatAmount(n, f) is what coreutils 9.1's du prints for n bytes (or n inodes)
// under the equivalent options: "-B 1K" 1025 -> "2", "-h" 1025 -> "1.1K", "-B K" 1024 -> "1K",
// "-B KB" 1000 -> "1kB". Pure functions, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::catalog::report {

struct SizeFormat {
  uint64_t block_size = 1024;  // amounts are divided by this, rounded up
  bool autoscale = false;      // -h: the largest power of 1024 that keeps the figure >= 1
  bool unit_suffix = false;    // print a unit letter (-h, or -B given as a bare unit: "K")
  bool unit_b = false;         // ... followed by "B" ("KB", "KiB")
  bool base_1024 = true;       // unit letters mean powers of 1024 (false: of 1000, "KB")
};

// GNU's -h: 1.0K, 12K, 1.1M.
SizeFormat HumanReadable();
// A whole block size in bytes (-k: 1024, -m: 1048576, -b: 1).
SizeFormat BlockSize(uint64_t bytes);
// A -B argument: a number with an optional unit ("1", "4K", "1KB", "1MiB"), or a bare unit
// ("K", "MB", "GiB") which also prints the unit; units K M G T P E Z Y (powers of 1024, or
// of 1000 when followed by "B"). An error naming `spec` when it is none of these, or zero.
Result<SizeFormat> ParseBlockSize(std::string_view spec);

std::string FormatAmount(uint64_t amount, const SizeFormat& format);

}  // namespace fathom::catalog::report
