// byte_ranges.h — which bytes of one file a stream holds: disjoint [begin, end) ranges, merged
// when they touch or overlap. The publisher keeps what is acknowledged (and what an earlier
// publisher left in the stream); the fetch checks that a file's ranges leave no hole.
// Plain value type, one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace fathom::iotrace::transport {

class ByteRanges {
 public:
  // Adds [begin, end); an empty range is ignored.
  void Add(uint64_t begin, uint64_t end);
  // The first byte at or after `offset` that no range holds.
  uint64_t FirstMissing(uint64_t offset) const;
  // The start of the first range beginning after `offset`, or UINT64_MAX.
  uint64_t NextHeld(uint64_t offset) const;
  // The first hole below end(): bytes no range holds, or nothing when [0, end()) is whole.
  std::optional<std::pair<uint64_t, uint64_t>> FirstHole() const;
  // The end of the last range (0 when empty).
  uint64_t end() const { return ranges_.empty() ? 0 : ranges_.rbegin()->second; }
  // Bytes held, each once.
  uint64_t bytes() const;

 private:
  std::map<uint64_t, uint64_t> ranges_;  // begin -> end; disjoint, never touching
};

}  // namespace fathom::iotrace::transport
