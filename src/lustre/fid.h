// fid.h — Lustre file identifiers: [seq:oid:ver].
//
// Value type. Text form is Lustre's DFID: "[0x200000007:0x1:0x0]" (hex, lower case, seq
// with 0x, oid/ver with 0x; printf's %#llx prints a zero seq as "0", so the zero FID is
// "[0:0x0:0x0]"). ParseFid accepts it with or without the brackets, each part as 0x<hex>
// (either case) or a bare "0", and rejects anything else (trailing text, overflow, missing
// parts) with a message naming the input.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "fathom/status.h"
#include "lustre/lustre_abi.h"

namespace fathom::lustre {

struct Fid {
  uint64_t seq = 0;
  uint32_t oid = 0;
  uint32_t ver = 0;

  bool zero() const { return seq == 0 && oid == 0; }
  auto operator<=>(const Fid&) const = default;
};

// The root directory of every Lustre file system.
inline constexpr Fid kRootFid{0x200000007, 0x1, 0x0};

std::string FormatFid(const Fid& fid);  // "[0x200000007:0x1:0x0]"

// The inode number a 64-bit Lustre client shows for a FID (fid_flatten in lustre_fid.h):
// the sequence shifted up 24 bits, plus its high bits folded in, plus the object id.
inline uint64_t FlattenFid(const Fid& fid) {
  const uint64_t seq = fid.seq;
  const uint64_t ino = (seq << 24) + ((seq >> 24) & 0xffffff0000ULL) + fid.oid;
  return ino != 0 ? ino : fid.oid;
}
// The longest FormatFid text: "[0x" + 16 + ":0x" + 8 + ":0x" + 8 + "]".
inline constexpr size_t kMaxFidText = 42;
// Writes FormatFid's text to `out`, which has room for kMaxFidText chars; returns the end.
char* FormatFidTo(const Fid& fid, char* out);
Result<Fid> ParseFid(std::string_view text);  // with or without [ ]
Fid FromAbi(const lu_fid& fid);
lu_fid ToAbi(const Fid& fid);

struct FidHash {
  size_t operator()(const Fid& f) const noexcept {
    return std::hash<uint64_t>{}(f.seq * 0x9E3779B97F4A7C15ull ^ (uint64_t{f.oid} << 32 | f.ver));
  }
};

}  // namespace fathom::lustre
