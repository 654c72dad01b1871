// fid.cpp — FID text form (Lustre's DFID) and conversion to/from struct lu_fid.
#include "lustre/fid.h"

#include <cstring>

#include "lustre/number_text.h"

namespace fathom::lustre {

char* FormatFidTo(const Fid& fid, char* out) {
  *out++ = '[';
  if (fid.seq != 0) {  // %#llx: no 0x for zero
    *out++ = '0';
    *out++ = 'x';
  }
  out = internal::WriteHex(out, fid.seq);
  *out++ = ':';
  *out++ = '0';
  *out++ = 'x';
  out = internal::WriteHex(out, fid.oid);
  *out++ = ':';
  *out++ = '0';
  *out++ = 'x';
  out = internal::WriteHex(out, fid.ver);
  *out++ = ']';
  return out;
}

std::string FormatFid(const Fid& fid) {
  char buf[kMaxFidText];
  return std::string(buf, FormatFidTo(fid, buf));
}

Result<Fid> ParseFid(std::string_view text) {
  auto bad = [&](const char* why) {
    return Status::Error("invalid FID '" + std::string(text) + "': " + why +
                         " (expected [0xSEQ:0xOID:0xVER])");
  };
  std::string_view s = text;
  if (!s.empty() && s.front() == '[') {
    if (s.size() < 2 || s.back() != ']') return bad("'[' without closing ']'");
    s = s.substr(1, s.size() - 2);
  } else if (!s.empty() && s.back() == ']') {
    return bad("']' without opening '['");
  }
  size_t c1 = s.find(':');
  if (c1 == std::string_view::npos) return bad("missing ':' after the sequence");
  size_t c2 = s.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return bad("missing ':' after the object id");
  Fid fid;
  if (!internal::ReadPrefixedHex(s.substr(0, c1), &fid.seq, true)) {
    return bad("the sequence is not a 64-bit 0x<hex> number");
  }
  if (!internal::ReadPrefixedHex(s.substr(c1 + 1, c2 - c1 - 1), &fid.oid, true)) {
    return bad("the object id is not a 32-bit 0x<hex> number");
  }
  if (!internal::ReadPrefixedHex(s.substr(c2 + 1), &fid.ver, true)) {
    return bad("the version is not a 32-bit 0x<hex> number");
  }
  return fid;
}

Fid FromAbi(const lu_fid& fid) {
  lu_fid copy;
  std::memcpy(&copy, &fid, sizeof copy);  // lu_fid is packed: no references into it
  return Fid{copy.f_seq, copy.f_oid, copy.f_ver};
}

lu_fid ToAbi(const Fid& fid) {
  lu_fid out;
  out.f_seq = fid.seq;
  out.f_oid = fid.oid;
  out.f_ver = fid.ver;
  return out;
}

}  // namespace fathom::lustre
