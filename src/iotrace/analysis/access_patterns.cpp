// access_patterns.cpp — Darshan's access-size buckets, its sequential and consecutive counts,
// and alignment, computed from runs without expanding them.
#include <algorithm>
#include <numeric>

#include "iotrace/analysis/job_pieces.h"

namespace fathom::iotrace {

int SizeBucket(uint64_t size) {
  // Darshan's bounds: "< 101", "< 1025", "< 10241", ... so that 1 MiB falls in 100K-1M.
  static constexpr uint64_t kBelow[kSizeBuckets - 1] = {101,         1025,          10241,
                                                        102401,      1048577,       4194305,
                                                        10485761,    104857601,     1073741825};
  for (int i = 0; i < kSizeBuckets - 1; ++i) {
    if (size < kBelow[i]) return i;
  }
  return kSizeBuckets - 1;
}

const char* SizeBucketName(int bucket) {
  static constexpr const char* kNames[kSizeBuckets] = {"0_100",    "100_1K",   "1K_10K",    "10K_100K", "100K_1M",
                                                       "1M_4M",    "4M_10M",   "10M_100M",  "100M_1G",  "1G_PLUS"};
  return bucket >= 0 && bucket < kSizeBuckets ? kNames[bucket] : "?";
}

namespace analysis {

SequentialCounts CountSequential(std::vector<AccessRun> runs) {
  std::stable_sort(runs.begin(), runs.end(), [](const AccessRun& a, const AccessRun& b) { return a.start < b.start; });
  SequentialCounts counts;
  int64_t last_byte = 0;  // Darshan starts it at 0
  for (const AccessRun& r : runs) {
    if (r.count == 0) continue;
    counts.ops += r.count;
    if (r.offset > last_byte) ++counts.sequential;
    if (r.offset == last_byte + 1) ++counts.consecutive;
    // Within the run each operation follows the one before it by the stride.
    if (r.count > 1) {
      if (r.stride > r.bytes - 1) counts.sequential += r.count - 1;
      if (r.stride == r.bytes) counts.consecutive += r.count - 1;
    }
    last_byte = r.offset + static_cast<int64_t>(r.count - 1) * r.stride + r.bytes - 1;
  }
  return counts;
}

uint64_t UnalignedOffsets(int64_t offset, int64_t stride, uint64_t count, int64_t alignment) {
  auto mod = [alignment](int64_t v) { return ((v % alignment) + alignment) % alignment; };
  const int64_t start = mod(offset);
  const int64_t step = mod(stride);
  // The offsets' residues repeat with period alignment / gcd(step, alignment).
  const uint64_t period = static_cast<uint64_t>(alignment / std::gcd(step == 0 ? alignment : step, alignment));
  auto aligned_in = [&](uint64_t n) {
    uint64_t aligned = 0;
    int64_t r = start;
    for (uint64_t i = 0; i < n; ++i) {
      aligned += r == 0 ? 1 : 0;
      r = (r + step) % alignment;
    }
    return aligned;
  };
  const uint64_t per_period = aligned_in(std::min(period, count));
  const uint64_t aligned = count <= period ? per_period : (count / period) * per_period + aligned_in(count % period);
  return count - aligned;
}

}  // namespace analysis
}  // namespace fathom::iotrace
