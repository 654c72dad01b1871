// varint.h — the writing half of fathom's binary encodings (store chunks, wire frames):
// LEB128 varints and length-prefixed bytes.
//
// Unsigned integers are little-endian base-128 groups of 7 bits, the high bit set on every
// byte but the last (at most 10 bytes for 64 bits). A string is its byte length as a varint,
// then the bytes, unvalidated (paths may hold any byte but NUL). Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fathom {

inline constexpr size_t kMaxVarintBytes = 10;

// Writes v at p, which has room for kMaxVarintBytes; returns the end of what it wrote.
inline char* WriteVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

inline void PutVarint(std::string& out, uint64_t v) {
  char buf[kMaxVarintBytes];
  out.append(buf, static_cast<size_t>(WriteVarint(buf, v) - buf));
}

inline void PutString(std::string& out, std::string_view s) {
  PutVarint(out, s.size());
  out.append(s);
}

}  // namespace fathom
