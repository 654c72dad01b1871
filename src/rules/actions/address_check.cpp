// address_check.cpp — CheckWebhookAddress: the address's bytes against the refused ranges.
#include "rules/actions/address_check.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>

namespace fathom::rules {
namespace {

enum class Range { kPublic, kLoopback, kLinkLocal, kPrivate };

Range Classify4(const uint8_t* a) {
  if (a[0] == 127 || (a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0)) return Range::kLoopback;
  if (a[0] == 169 && a[1] == 254) return Range::kLinkLocal;
  if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168)) return Range::kPrivate;
  return Range::kPublic;
}

Range Classify6(const std::array<uint8_t, 16>& a) {
  bool zero_prefix = true;  // the first 10 bytes
  for (int i = 0; i < 10; ++i) zero_prefix = zero_prefix && a[i] == 0;
  if (zero_prefix && a[10] == 0xff && a[11] == 0xff) return Classify4(&a[12]);
  if (zero_prefix && a[10] == 0 && a[11] == 0 && a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] <= 1) {
    return Range::kLoopback;  // ::1 and ::
  }
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return Range::kLinkLocal;
  if ((a[0] & 0xfe) == 0xfc) return Range::kPrivate;
  return Range::kPublic;
}

}  // namespace

Status CheckWebhookAddress(const std::string& ip, bool allow_loopback, bool allow_private) {
  std::array<uint8_t, 16> bytes{};
  Range range = Range::kPublic;
  if (inet_pton(AF_INET, ip.c_str(), bytes.data()) == 1) {
    range = Classify4(bytes.data());
  } else if (inet_pton(AF_INET6, ip.c_str(), bytes.data()) == 1) {
    range = Classify6(bytes);
  } else {
    return Status::Error("refused to connect to \"" + ip + "\": not an IP address");
  }
  switch (range) {
    case Range::kPublic:
      return Status::Ok();
    case Range::kLoopback:
    case Range::kLinkLocal:
      if (allow_loopback) return Status::Ok();
      return Status::Error("refused to connect to " + ip + ": a " +
                           (range == Range::kLoopback ? "loopback" : "link-local") +
                           " address (allow_loopback permits it)");
    case Range::kPrivate:
      if (allow_private) return Status::Ok();
      return Status::Error("refused to connect to " + ip + ": a private address (allow_private permits it)");
  }
  return Status::Ok();
}

}  // namespace fathom::rules
