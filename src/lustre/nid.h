// nid.h — LNet network identifiers (NIDs): text <-> Lustre's two binary forms.
//
// Text form is libcfs's (nidstrings.c): ADDR@NET, NET = lo | tcp[N] | o2ib[N] | gni[N] |
// gip[N] | ptlf[N] | kfi[N] | efa[N] | bxi3f[N] (N omitted when 0), or <LND:N> for an LND
// libcfs does not know; ADDR dotted IPv4 for the IP networks (IPv6 too for tcp and efa in
// the large form), decimal for the others, hex for unknown LNDs; "<?>" is LNET_NID_ANY.
// Binary forms: lnet_nid_t, the 64-bit (LND << 16 | netnum) << 32 | addr (so "0@lo" is
// LNET_NID_LO_0 = 9 << 48, and 10.0.0.1@tcp is 0x000200000a000001); and struct lnet_nid,
// 20 bytes in network order, which changelog records carry when CLFE_NID_BE is set.
// Parsing resolves no host names. Value type, pure functions, any thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::lustre {

inline constexpr uint32_t kLndSock = 2;                      // SOCKLND: "tcp"
inline constexpr uint32_t kLndO2ib = 5;                      // O2IBLND: "o2ib"
inline constexpr uint32_t kLndLo = 9;                        // LOLND: "lo"
inline constexpr uint64_t kNidAny = ~uint64_t{0};            // LNET_NID_ANY, "<?>"
inline constexpr uint64_t kNidLo0 = uint64_t{kLndLo} << 48;  // LNET_NID_LO_0, "0@lo"
inline constexpr size_t kLnetNidBytes = 20;                  // sizeof(struct lnet_nid)

// One NID in its general (large) form.
struct Nid {
  uint8_t type = 0;                // LND; 0xff = LNET_NID_ANY
  uint16_t num = 0;                // network number
  uint8_t addr_len = 4;            // 4 (IPv4 or a 32-bit number) or 16 (IPv6)
  std::array<uint8_t, 16> addr{};  // network byte order

  bool operator==(const Nid&) const = default;
};

Result<Nid> ParseNid(std::string_view text);
std::string FormatNid(const Nid& nid);

// lnet_nid_t <-> Nid. NidToNid4 is empty for a 16-byte address.
Nid NidFromNid4(uint64_t nid4);
std::optional<uint64_t> NidToNid4(const Nid& nid);
// libcfs_nid2str / libcfs_str2nid.
std::string FormatNid4(uint64_t nid4);
Result<uint64_t> ParseNid4(std::string_view text);

// struct lnet_nid bytes <-> Nid. Reading rejects address sizes other than 4 and 16 bytes
// and 16-byte addresses on networks that have no IPv6 form.
std::array<uint8_t, kLnetNidBytes> NidToLnetNid(const Nid& nid);
Result<Nid> NidFromLnetNid(std::span<const uint8_t, kLnetNidBytes> bytes);

}  // namespace fathom::lustre
