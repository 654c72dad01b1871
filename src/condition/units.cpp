#include "condition/units.h"

#include <array>
#include <cctype>
#include <limits>
#include <string>
#include <utility>

namespace fathom::condition {
namespace {

// The leading digits (at least one) and what follows them, lower-cased.
std::optional<std::pair<int64_t, std::string>> Split(std::string_view text) {
  size_t i = 0;
  int64_t value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const int digit = text[i] - '0';
    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  std::string unit;
  for (; i < text.size(); ++i) unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
  return std::make_pair(value, unit);
}

std::optional<int64_t> Scaled(int64_t value, int64_t factor) {
  if (value > std::numeric_limits<int64_t>::max() / factor) return std::nullopt;
  return value * factor;
}

}  // namespace

std::optional<int64_t> ParseSize(std::string_view text) {
  auto split = Split(text);
  if (!split) return std::nullopt;
  const auto& [value, unit] = *split;
  static constexpr std::array<std::pair<const char*, int>, 15> kUnits = {{
      {"", 0}, {"b", 0}, {"k", 1}, {"kb", 1}, {"m", 2}, {"mb", 2}, {"g", 3}, {"gb", 3},
      {"t", 4}, {"tb", 4}, {"p", 5}, {"pb", 5}, {"e", 6}, {"eb", 6}, {"kib", 1}}};
  for (const auto& [name, power] : kUnits) {
    if (unit == name) return Scaled(value, int64_t{1} << (10 * power));
  }
  return std::nullopt;
}

std::optional<int64_t> ParseDuration(std::string_view text) {
  auto split = Split(text);
  if (!split) return std::nullopt;
  const auto& [value, unit] = *split;
  constexpr int64_t kSecond = 1000000000;
  static constexpr std::array<std::pair<const char*, int64_t>, 15> kUnits = {{
      {"ms", kSecond / 1000}, {"", kSecond}, {"s", kSecond}, {"sec", kSecond}, {"m", 60 * kSecond}, {"min", 60 * kSecond},
      {"h", 3600 * kSecond}, {"hour", 3600 * kSecond}, {"d", 86400 * kSecond}, {"day", 86400 * kSecond},
      {"w", 7 * 86400 * kSecond}, {"week", 7 * 86400 * kSecond}, {"y", 365 * 86400 * kSecond},
      {"year", 365 * 86400 * kSecond}, {"days", 86400 * kSecond}}};
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) return Scaled(value, factor);
  }
  return std::nullopt;
}

std::optional<int64_t> ParseCount(std::string_view text) {
  auto split = Split(text);
  if (!split || !split->second.empty()) return std::nullopt;
  return split->first;
}

}  // namespace fathom::condition
