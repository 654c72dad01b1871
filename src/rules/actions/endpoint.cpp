// endpoint.cpp — EndpointOf.
#include "rules/actions/endpoint.h"

#include <cctype>

namespace fathom::rules {

std::string EndpointOf(std::string_view url) {
  std::string scheme;
  for (std::string_view s : {"http", "https"}) {
    const std::string prefix = std::string(s) + "://";
    if (url.size() < prefix.size()) continue;
    bool same = true;
    for (size_t i = 0; i < prefix.size(); ++i) {
      same = same && std::tolower(static_cast<unsigned char>(url[i])) == prefix[i];
    }
    if (same) scheme = s;
  }
  if (scheme.empty()) return std::string(url);
  std::string_view authority = url.substr(scheme.size() + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view host = authority;
  std::string_view port;
  const size_t bracket = authority.find(']');
  const size_t colon = authority.find(':', bracket == std::string_view::npos ? 0 : bracket);
  if (colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  std::string out = scheme + "://";
  for (char c : host) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  out += ":";
  out += port.empty() ? (scheme == "https" ? "443" : "80") : std::string(port);
  return out;
}

}  // namespace fathom::rules
