// nid.cpp — libcfs's NID strings for the LNDs Lustre ships, both binary NID forms.
#include "lustre/nid.h"

#include <arpa/inet.h>

#include <cstring>

#include "lustre/number_text.h"

namespace fathom::lustre {
namespace {

enum class AddrKind { kDecimal, kIpv4, kIpv4Or6 };

struct Lnd {
  uint8_t type;
  std::string_view name;
  AddrKind kind;
};

// libcfs_netstrfns, in its order (names are matched as prefixes, first match wins).
constexpr Lnd kLnds[] = {
    {9, "lo", AddrKind::kDecimal},     {2, "tcp", AddrKind::kIpv4Or6},
    {5, "o2ib", AddrKind::kIpv4},      {13, "gni", AddrKind::kDecimal},
    {14, "gip", AddrKind::kIpv4},      {15, "ptlf", AddrKind::kDecimal},
    {16, "kfi", AddrKind::kDecimal},   {18, "efa", AddrKind::kIpv4Or6},
    {19, "bxi3f", AddrKind::kDecimal},
};

const Lnd* FindLnd(uint8_t type) {
  for (const Lnd& l : kLnds) {
    if (l.type == type) return &l;
  }
  return nullptr;
}

constexpr Nid kAnyNid{0xff, 0xffff, 4, {0xff, 0xff, 0xff, 0xff}};

uint32_t Addr32(const Nid& nid) {
  return uint32_t{nid.addr[0]} << 24 | uint32_t{nid.addr[1]} << 16 | uint32_t{nid.addr[2]} << 8 |
         nid.addr[3];
}

void SetAddr32(Nid* nid, uint32_t a) {
  nid->addr_len = 4;
  nid->addr = {};
  nid->addr[0] = static_cast<uint8_t>(a >> 24);
  nid->addr[1] = static_cast<uint8_t>(a >> 16);
  nid->addr[2] = static_cast<uint8_t>(a >> 8);
  nid->addr[3] = static_cast<uint8_t>(a);
}

char* WriteDotted(char* out, const uint8_t* a) {
  for (int i = 0; i < 4; ++i) {
    if (i) *out++ = '.';
    out = internal::WriteDec(out, a[i]);
  }
  return out;
}

// Writes ADDR@NET (no "<?>" handling): room for 64 chars.
char* WriteNid(char* out, const Nid& nid) {
  const Lnd* lnd = FindLnd(nid.type);
  if (lnd == nullptr) {
    out = internal::WriteHex(out, Addr32(nid));
  } else if (lnd->kind == AddrKind::kDecimal) {
    out = internal::WriteDec(out, Addr32(nid));
  } else if (nid.addr_len == 16 && lnd->kind == AddrKind::kIpv4Or6) {
    char v6[INET6_ADDRSTRLEN];
    if (inet_ntop(AF_INET6, nid.addr.data(), v6, sizeof v6) != nullptr) {
      size_t n = std::strlen(v6);
      std::memcpy(out, v6, n);
      out += n;
    }
  } else {
    out = WriteDotted(out, nid.addr.data());
  }
  *out++ = '@';
  if (lnd == nullptr) {
    *out++ = '<';
    out = internal::WriteDec(out, nid.type);
    *out++ = ':';
    out = internal::WriteDec(out, nid.num);
    *out++ = '>';
  } else {
    std::memcpy(out, lnd->name.data(), lnd->name.size());
    out += lnd->name.size();
    if (nid.num != 0) out = internal::WriteDec(out, nid.num);
  }
  return out;
}

bool ReadDotted(std::string_view s, Nid* nid) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) {
    size_t dot = i < 3 ? s.find('.') : s.size();
    if (dot == std::string_view::npos || dot == 0 || dot > 3) return false;
    uint32_t v = 0;
    if (!internal::ReadDec(s.substr(0, dot), &v) || v > 255) return false;
    bytes[i] = static_cast<uint8_t>(v);
    s.remove_prefix(i < 3 ? dot + 1 : dot);
  }
  nid->addr_len = 4;
  nid->addr = {};
  std::memcpy(nid->addr.data(), bytes, 4);
  return true;
}

bool ReadNumberAddr(std::string_view s, Nid* nid) {
  uint32_t v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (!internal::ReadHex(s.substr(2), &v)) return false;
  } else if (!internal::ReadDec(s, &v)) {
    return false;
  }
  SetAddr32(nid, v);
  return true;
}

}  // namespace

std::string FormatNid(const Nid& nid) {
  if (nid.type == 0xff) return "<?>";
  char buf[64];
  return std::string(buf, WriteNid(buf, nid));
}

std::string FormatNid4(uint64_t nid4) {
  if (nid4 == kNidAny) return "<?>";
  char buf[64];
  return std::string(buf, WriteNid(buf, NidFromNid4(nid4)));
}

Result<Nid> ParseNid(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::Error("invalid NID '" + std::string(text) + "': " + why +
                         " (expected ADDR@NET, e.g. 0@lo, 10.0.0.1@tcp, 192.168.1.2@o2ib1)");
  };
  if (text == "<?>") return kAnyNid;
  size_t at = text.find('@');
  std::string_view addr = text.substr(0, at);
  std::string_view net = at == std::string_view::npos ? "tcp" : text.substr(at + 1);
  Nid nid;
  const Lnd* lnd = nullptr;
  if (!net.empty() && net.front() == '<') {
    size_t colon = net.find(':');
    uint32_t type = 0, num = 0;
    if (net.back() != '>' || colon == std::string_view::npos ||
        !internal::ReadDec(net.substr(1, colon - 1), &type) ||
        !internal::ReadDec(net.substr(colon + 1, net.size() - colon - 2), &num) || type > 0xff ||
        num > 0xffff) {
      return bad("network '" + std::string(net) + "' is not <LND:NUMBER>");
    }
    nid.type = static_cast<uint8_t>(type);
    nid.num = static_cast<uint16_t>(num);
    lnd = FindLnd(nid.type);
  } else {
    for (const Lnd& l : kLnds) {
      if (net.substr(0, l.name.size()) == l.name) {
        lnd = &l;
        break;
      }
    }
    if (lnd == nullptr) return bad("unknown network '" + std::string(net) + "'");
    uint32_t num = 0;
    std::string_view digits = net.substr(lnd->name.size());
    if (!digits.empty() && (!internal::ReadDec(digits, &num) || num > 0xffff)) {
      return bad("network number '" + std::string(digits) + "' is not 0..65535");
    }
    nid.type = lnd->type;
    nid.num = static_cast<uint16_t>(num);
  }
  bool ok = false;
  if (lnd == nullptr) {
    uint32_t v = 0;
    ok = internal::ReadHex(addr, &v);
    if (ok) SetAddr32(&nid, v);
  } else if (lnd->kind == AddrKind::kDecimal) {
    ok = ReadNumberAddr(addr, &nid);
  } else {
    ok = ReadDotted(addr, &nid);
    if (!ok && lnd->kind == AddrKind::kIpv4Or6 && addr.size() < INET6_ADDRSTRLEN) {
      char v6[INET6_ADDRSTRLEN];
      std::memcpy(v6, addr.data(), addr.size());
      v6[addr.size()] = '\0';
      ok = inet_pton(AF_INET6, v6, nid.addr.data()) == 1;
      if (ok) nid.addr_len = 16;
    }
  }
  if (!ok) return bad("address '" + std::string(addr) + "' does not suit the network");
  return nid;
}

Nid NidFromNid4(uint64_t nid4) {
  if (nid4 == kNidAny) return kAnyNid;
  Nid nid;
  nid.type = static_cast<uint8_t>(nid4 >> 48);
  nid.num = static_cast<uint16_t>(nid4 >> 32);
  SetAddr32(&nid, static_cast<uint32_t>(nid4));
  return nid;
}

std::optional<uint64_t> NidToNid4(const Nid& nid) {
  if (nid.type == 0xff) return kNidAny;  // as lnet_nid_to_nid4: LND 0xff means ANY
  if (nid.addr_len != 4) return std::nullopt;
  return (uint64_t{nid.type} << 16 | nid.num) << 32 | Addr32(nid);
}

Result<uint64_t> ParseNid4(std::string_view text) {
  Result<Nid> nid = ParseNid(text);
  if (!nid.ok()) return nid.status();
  std::optional<uint64_t> nid4 = NidToNid4(*nid);
  if (!nid4) {
    return Status::Error("NID '" + std::string(text) +
                         "' has a 16-byte address; it has no 64-bit lnet_nid_t form");
  }
  return *nid4;
}

std::array<uint8_t, kLnetNidBytes> NidToLnetNid(const Nid& nid) {
  std::array<uint8_t, kLnetNidBytes> out{};
  if (nid.type == 0xff) {
    out.fill(0xff);  // LNET_ANY_NID
    return out;
  }
  out[0] = static_cast<uint8_t>(nid.addr_len - 4);
  out[1] = nid.type;
  out[2] = static_cast<uint8_t>(nid.num >> 8);
  out[3] = static_cast<uint8_t>(nid.num);
  std::memcpy(out.data() + 4, nid.addr.data(), nid.addr_len == 16 ? 16 : 4);
  return out;
}

Result<Nid> NidFromLnetNid(std::span<const uint8_t, kLnetNidBytes> bytes) {
  if (bytes[1] == 0xff) return kAnyNid;  // LNET_NID_IS_ANY looks at the type only
  Nid nid;
  nid.type = bytes[1];
  nid.num = static_cast<uint16_t>(bytes[2] << 8 | bytes[3]);
  if (bytes[0] == 0) {
    nid.addr_len = 4;
    std::memcpy(nid.addr.data(), bytes.data() + 4, 4);
    return nid;
  }
  const Lnd* lnd = FindLnd(nid.type);
  if (bytes[0] != 12 || lnd == nullptr || lnd->kind != AddrKind::kIpv4Or6) {
    return Status::Error("struct lnet_nid with a " + std::to_string(bytes[0] + 4) +
                         "-byte address on LND " + std::to_string(nid.type) +
                         " is not supported (only 4-byte addresses, or 16-byte IPv6 on tcp/efa)");
  }
  nid.addr_len = 16;
  std::memcpy(nid.addr.data(), bytes.data() + 4, 16);
  return nid;
}

}  // namespace fathom::lustre
