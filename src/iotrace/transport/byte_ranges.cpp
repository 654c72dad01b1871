#include "iotrace/transport/byte_ranges.h"

#include <algorithm>
#include <limits>

namespace fathom::iotrace::transport {

void ByteRanges::Add(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  // The first range that ends at or after `begin` (it touches or overlaps, or lies beyond).
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin()) {
    auto before = std::prev(it);
    if (before->second >= begin) it = before;
  }
  while (it != ranges_.end() && it->first <= end) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(begin, end);
}

uint64_t ByteRanges::FirstMissing(uint64_t offset) const {
  auto it = ranges_.upper_bound(offset);
  if (it == ranges_.begin()) return offset;
  --it;
  return std::max(offset, it->second);
}

uint64_t ByteRanges::NextHeld(uint64_t offset) const {
  auto it = ranges_.upper_bound(offset);
  return it == ranges_.end() ? std::numeric_limits<uint64_t>::max() : it->first;
}

std::optional<std::pair<uint64_t, uint64_t>> ByteRanges::FirstHole() const {
  uint64_t at = 0;
  for (const auto& [begin, end] : ranges_) {
    if (begin > at) return std::make_pair(at, begin);
    at = end;
  }
  return std::nullopt;
}

uint64_t ByteRanges::bytes() const {
  uint64_t total = 0;
  for (const auto& [begin, end] : ranges_) total += end - begin;
  return total;
}

}  // namespace fathom::iotrace::transport
