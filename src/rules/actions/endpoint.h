// endpoint.h — the endpoint of a webhook's URL: what per-endpoint concurrency counts.
//
// Contract: "scheme://host:port" with scheme and host in lower case and the port explicit
// (80 for http, 443 for https when the URL gives none): "https://Hooks.Example/a?b" ->
// "https://hooks.example:443"; an IPv6 host keeps its brackets. User information before '@'
// is dropped. A URL that is not http:// or https:// is its own endpoint (the URL itself).
// Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace fathom::rules {

std::string EndpointOf(std::string_view url);

}  // namespace fathom::rules
