// address_check.h — which network addresses a webhook may be delivered to.
//
// Contract: `ip` is numeric text (IPv4 dotted or IPv6, IPv4-mapped IPv6 judged as its IPv4).
// Loopback (127.0.0.0/8, ::1, and the unspecified 0.0.0.0 / ::, which reach this host) and
// link-local (169.254.0.0/16, fe80::/10) need `allow_loopback`; private ranges (10.0.0.0/8,
// 172.16.0.0/12, 192.168.0.0/16, fc00::/7) need `allow_private`. The error names the address,
// its range and the setting that would permit it. Pure; any thread.
#pragma once

#include <string>

#include "fathom/status.h"

namespace fathom::rules {

Status CheckWebhookAddress(const std::string& ip, bool allow_loopback, bool allow_private);

}  // namespace fathom::rules
