// number_text.h — the integer <-> ASCII conversions of the Lustre text codecs.
//
// Private to fathom_lustre. Writers put digits at `out` (the caller guarantees room: 16 hex
// or 20 decimal digits) and return the end, like printf's %llx / %llu without a locale.
// Readers take a whole std::string_view of digits (no sign, no prefix, no spaces) and return
// false on anything else, including overflow of T. Pure functions, any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace fathom::lustre::internal {

inline char* WriteHex(char* out, uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char tmp[16];
  int n = 0;
  do {
    tmp[n++] = kDigits[v & 0xf];
    v >>= 4;
  } while (v != 0);
  while (n > 0) *out++ = tmp[--n];
  return out;
}

inline char* WriteDec(char* out, uint64_t v) {
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) *out++ = tmp[--n];
  return out;
}

// Exactly `width` decimal digits, zero-padded (v must fit).
inline char* WriteDecFixed(char* out, uint32_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return out + width;
}

inline int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <typename T>
bool ReadHex(std::string_view s, T* value) {
  if (s.empty()) return false;
  T v = 0;
  for (char c : s) {
    int d = HexValue(c);
    if (d < 0 || v > (std::numeric_limits<T>::max() >> 4)) return false;
    v = static_cast<T>((v << 4) | static_cast<T>(d));
  }
  *value = v;
  return true;
}

template <typename T>
bool ReadDec(std::string_view s, T* value) {
  if (s.empty()) return false;
  constexpr T kMax = std::numeric_limits<T>::max();
  T v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const T d = static_cast<T>(c - '0');
    if (v > kMax / 10 || (v == kMax / 10 && d > kMax % 10)) return false;
    v = static_cast<T>(v * 10 + d);
  }
  *value = v;
  return true;
}

// "0x<hex>" / "0X<hex>" as printf's 0x%x prints; also a bare "0" when `bare_zero` (what
// %#x prints for zero).
template <typename T>
bool ReadPrefixedHex(std::string_view s, T* value, bool bare_zero) {
  if (bare_zero && s == "0") {
    *value = 0;
    return true;
  }
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  return ReadHex(s.substr(2), value);
}

}  // namespace fathom::lustre::internal
