// latency_histogram.h — the end-to-end latency record of the distributed benchmark's
// consumers (latency_subscriber, pubsub_pipeline's subscriber role).
//
// Record() takes one latency in nanoseconds (receipt time minus the event's ts_ns; negative
// values count as 0) into a log-linear histogram: 64 sub-buckets per power of two, so a
// percentile is exact to within 1.6 %. Report() prints the one JSON line both programs emit:
// events, seconds from first to last receipt, events/s, p50/p90/p99/max latency in ms, and the
// receipt times (CLOCK_REALTIME ns) of the first and last event. One thread; header-only.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>

namespace fathom::bench {

class LatencyHistogram {
 public:
  // One event received at `now_ns` (CLOCK_REALTIME) that was created at `created_ns`.
  void Record(int64_t now_ns, int64_t created_ns) {
    if (count_ == 0) first_ns_ = now_ns;
    last_ns_ = now_ns;
    ++count_;
    const uint64_t latency = now_ns > created_ns ? static_cast<uint64_t>(now_ns - created_ns) : 0;
    max_ns_ = std::max(max_ns_, latency);
    ++buckets_[Bucket(latency)];
  }
  uint64_t count() const { return count_; }

  // The latency (ns, the upper bound of its bucket) below which `fraction` of events fall.
  uint64_t Percentile(double fraction) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<uint64_t>(fraction * static_cast<double>(count_ - 1)) + 1;
    uint64_t seen = 0;
    for (size_t b = 0; b < buckets_.size(); ++b) {
      seen += buckets_[b];
      if (seen >= rank) return std::min(UpperBound(b), max_ns_);
    }
    return max_ns_;
  }

  // `extra`: more JSON members ("\"role\":\"x\"" ...), without braces or a leading comma.
  void Report(const std::string& extra) const {
    const double seconds = count_ > 1 ? static_cast<double>(last_ns_ - first_ns_) / 1e9 : 0.0;
    const double rate = seconds > 0 ? static_cast<double>(count_) / seconds : 0.0;
    std::printf(
        "{%s%s\"events\":%llu,\"seconds\":%.3f,\"events_per_s\":%.0f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,"
        "\"p99_ms\":%.3f,\"max_ms\":%.3f,\"first_ns\":%lld,\"last_ns\":%lld}\n",
        extra.c_str(), extra.empty() ? "" : ",", static_cast<unsigned long long>(count_), seconds, rate,
        Percentile(0.50) / 1e6, Percentile(0.90) / 1e6, Percentile(0.99) / 1e6, max_ns_ / 1e6,
        static_cast<long long>(first_ns_), static_cast<long long>(last_ns_));
    std::fflush(stdout);
  }

 private:
  static constexpr int kSubBits = 6;  // 64 sub-buckets per power of two
  static constexpr uint64_t kSub = uint64_t{1} << kSubBits;

  static size_t Bucket(uint64_t v) {
    if (v < kSub) return static_cast<size_t>(v);
    const int msb = 63 - std::countl_zero(v);
    const int shift = msb - kSubBits;
    return static_cast<size_t>((shift + 1) * kSub + ((v >> shift) - kSub));
  }
  static uint64_t UpperBound(size_t b) {
    if (b < kSub) return b;
    const uint64_t shift = b / kSub - 1;
    const uint64_t sub = b % kSub + kSub;
    return ((sub + 1) << shift) - 1;
  }

  std::array<uint64_t, (64 - kSubBits + 1) * kSub> buckets_{};
  uint64_t count_ = 0;
  uint64_t max_ns_ = 0;
  int64_t first_ns_ = 0;
  int64_t last_ns_ = 0;
};

}  // namespace fathom::bench
