#include "bus/bus_names.h"

#include <fmt/format.h>

#include "bus/nats_bus.h"

namespace fathom::bus {

bool IsNatsEndpoint(std::string_view endpoint) { return endpoint.starts_with("nats://"); }

namespace internal {

Result<std::vector<std::string>> ParseServers(std::string_view endpoint) {
  std::vector<std::string> servers;
  size_t start = 0;
  while (start <= endpoint.size()) {
    size_t comma = endpoint.find(',', start);
    if (comma == std::string_view::npos) comma = endpoint.size();
    std::string_view part = endpoint.substr(start, comma - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!IsNatsEndpoint(part) || part.size() == 7) {
      return Status::Error(fmt::format(
          "bus endpoint '{}': '{}' is not a nats://HOST:PORT URL (list several servers "
          "separated by commas)", endpoint, part));
    }
    servers.emplace_back(part);
    start = comma + 1;
  }
  return servers;
}

std::string SubjectToken(std::string_view collector) {
  std::string token;
  token.reserve(collector.size());
  for (unsigned char c : collector) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-';
    if (plain) {
      token.push_back(static_cast<char>(c));
    } else {
      fmt::format_to(std::back_inserter(token), "%{:02X}", c);
    }
  }
  return token;
}

std::string CollectorSubject(std::string_view subject_prefix, std::string_view collector) {
  return fmt::format("{}.{}", subject_prefix, SubjectToken(collector));
}

std::string AllCollectorsSubject(std::string_view subject_prefix) {
  return fmt::format("{}.>", subject_prefix);
}

std::string BatchMessageId(std::string_view collector, uint64_t to_position) {
  return fmt::format("{}:{}", SubjectToken(collector), to_position);
}

}  // namespace internal
}  // namespace fathom::bus
