// timeline.cpp — BuildTimeline(): each process's HDF5 time (read, write, metadata) over the run,
// in about 50 buckets of equal width.
#include <algorithm>
#include <limits>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

constexpr uint64_t kMaxBuckets = 50;

// The smallest of 1, 2, 5 x 10^k ns that covers `span` in at most kMaxBuckets buckets.
uint64_t BucketWidth(uint64_t span) {
  for (uint64_t decade = 1;; decade *= 10) {
    for (uint64_t step : {1, 2, 5}) {
      if (step * decade * kMaxBuckets >= span) return step * decade;
    }
  }
}

}  // namespace

Timeline BuildTimeline(const std::vector<Trace>& traces) {
  Timeline timeline;
  uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
  for (const Trace& t : traces) {
    for (const Call& c : t.calls) {
      if (c.parent != 0) continue;
      const uint64_t start = WallNs(t.process, c.start);
      first = std::min(first, start);
      last = std::max(last, start + c.duration);
    }
  }
  if (last == 0) return timeline;
  timeline.start_wall_ns = first;
  timeline.bucket_ns = BucketWidth(std::max<uint64_t>(last - first, 1));
  timeline.buckets = (last - first + timeline.bucket_ns - 1) / timeline.bucket_ns;
  timeline.buckets = std::max<uint64_t>(timeline.buckets, 1);
  for (const Trace& t : traces) {
    ProcessTimeline p{t.file, t.process.rank, t.process.pid, std::vector<TimelineBucket>(timeline.buckets)};
    for (const Call& c : t.calls) {
      if (c.parent != 0) continue;
      const format::OpClass op_class = analysis::ClassOf(c);
      uint64_t TimelineBucket::*field = op_class == format::OpClass::kRead    ? &TimelineBucket::read_ns
                                        : op_class == format::OpClass::kWrite ? &TimelineBucket::write_ns
                                                                              : &TimelineBucket::meta_ns;
      const uint64_t start = WallNs(t.process, c.start) - first, end = start + c.duration;
      for (uint64_t b = start / timeline.bucket_ns; b < timeline.buckets && b * timeline.bucket_ns < end; ++b) {
        const uint64_t from = std::max(start, b * timeline.bucket_ns);
        const uint64_t to = std::min(end, (b + 1) * timeline.bucket_ns);
        p.buckets[b].*field += to - from;
      }
    }
    timeline.processes.push_back(std::move(p));
  }
  return timeline;
}

}  // namespace fathom::h5prov
