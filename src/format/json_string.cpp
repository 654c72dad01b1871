// JSON string literals that are always valid UTF-8, and the `_b64` companions that keep file
// names' exact bytes (see fathom/format.h and docs/formats.md).
#include <cstdint>
#include <cstring>

#include "fathom/format.h"

namespace fathom {
namespace {

// The UTF-8 sequence at the start of `s` (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF): its length and whether it is well formed. An ill-formed one is its maximal
// valid prefix, at least one byte (Unicode's "maximal subpart", as Python's "replace" and
// WHATWG decoders count them), which becomes one U+FFFD.
struct Sequence {
  size_t length;
  bool valid;
};

Sequence NextSequence(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) return {1, true};
  size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return {1, false};
  }
  for (size_t i = 1; i < n; ++i) {
    if (i >= s.size()) return {i, false};
    const unsigned char min = i == 1 ? lo : 0x80;
    const unsigned char max = i == 1 ? hi : 0xbf;
    if (b(i) < min || b(i) > max) return {i, false};
  }
  return {n, true};
}

void AppendBase64(std::string_view bytes, std::string& out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])); };
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = b(i) << 16 | b(i + 1) << 8 | b(i + 2);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 0) return;
  const uint32_t v = b(i) << 16 | (rest == 2 ? b(i + 1) << 8 : 0);
  out += kAlphabet[(v >> 18) & 63];
  out += kAlphabet[(v >> 12) & 63];
  out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  out += '=';
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  while (!s.empty()) {
    const Sequence seq = NextSequence(s);
    if (!seq.valid) return false;
    s.remove_prefix(seq.length);
  }
  return true;
}

char* WriteJsonString(std::string_view s, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  *out++ = '"';
  while (!s.empty()) {
    const auto [n, valid] = NextSequence(s);
    const char c = s[0];
    const auto u = static_cast<unsigned char>(c);
    if (!valid) {
      std::memcpy(out, "\xef\xbf\xbd", 3);  // U+FFFD for an ill-formed sequence
      out += 3;
      s.remove_prefix(n);
      continue;
    }
    if (n > 1) {
      std::memcpy(out, s.data(), n);
      out += n;
    } else if (c == '"' || c == '\\') {
      *out++ = '\\';
      *out++ = c;
    } else if (c == '\n') {
      *out++ = '\\';
      *out++ = 'n';
    } else if (c == '\t') {
      *out++ = '\\';
      *out++ = 't';
    } else if (c == '\r') {
      *out++ = '\\';
      *out++ = 'r';
    } else if (u < 0x20) {
      std::memcpy(out, "\\u00", 4);
      out[4] = kHex[u >> 4];
      out[5] = kHex[u & 0xf];
      out += 6;
    } else {
      *out++ = c;
    }
    s.remove_prefix(n);
  }
  *out++ = '"';
  return out;
}

void AppendJsonString(std::string_view s, std::string& out) {
  const size_t at = out.size();
  out.resize(at + JsonStringBound(s.size()));
  char* end = WriteJsonString(s, out.data() + at);
  out.resize(static_cast<size_t>(end - out.data()));
}

void AppendJsonNameMember(std::string_view key, std::string_view value, std::string& out) {
  out += '"';
  out += key;
  out += "\":";
  AppendJsonString(value, out);
  if (IsValidUtf8(value)) return;
  out += ",\"";
  out += key;
  out += "_b64\":\"";
  AppendBase64(value, out);
  out += '"';
}

}  // namespace fathom
