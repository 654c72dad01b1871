// units.h — the condition language's numbers: sizes (B K/KB M/MB G/GB T/TB P/PB E/EB, powers
// of 1024, any case; a bare number is bytes), durations (ms s/sec m/min h/hour d/day
// w/week y/year, any case, a year being 365 days; a bare number is seconds) and plain non-negative
// integers. nullopt on anything else, a negative value or an overflow. Free functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fathom::condition {

std::optional<int64_t> ParseSize(std::string_view text);         // bytes
std::optional<int64_t> ParseDuration(std::string_view text);     // nanoseconds
std::optional<int64_t> ParseCount(std::string_view text);

}  // namespace fathom::condition
