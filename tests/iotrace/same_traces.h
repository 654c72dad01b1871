// same_traces.h — what the job file tests share: two lists of traces are equal field by field.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "fathom/iotrace.h"

namespace fathom::iotrace::testing {

inline auto Fields(const Run& r) {
  return std::make_tuple(r.tid, r.op, r.target, r.aux, r.t_first, r.t_last, r.count, r.has_offset,
                         r.offset, r.stride, r.size, r.result, r.err, r.duration_sum,
                         r.duration_min, r.duration_max);
}

inline auto Fields(const ProcessInfo& p) {
  return std::make_tuple(p.pid, p.ppid, p.anchor_realtime_ns, p.anchor_monotonic_ns, p.quantum_ns,
                         p.rank, p.uncompressed, p.uid, p.gid, p.host, p.job, p.exe, p.argv);
}

inline auto Fields(const Trace& t) {
  return std::make_tuple(t.file, t.has_process, t.dropped_buffer_full, t.dropped_in_signal_handler,
                         t.dropped_too_many_threads, t.io_uring_calls, t.aio_calls, t.end,
                         t.end_operations, t.end_dropped, t.frames, t.bytes, t.problems);
}

inline void ExpectSame(const std::vector<Trace>& want, const std::vector<Trace>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t p = 0; p < want.size(); ++p) {
    SCOPED_TRACE("process " + std::to_string(p));
    EXPECT_EQ(Fields(want[p]), Fields(got[p]));
    EXPECT_EQ(Fields(want[p].process), Fields(got[p].process));
    ASSERT_EQ(want[p].objects.size(), got[p].objects.size());
    for (auto w = want[p].objects.begin(), g = got[p].objects.begin(); w != want[p].objects.end();
         ++w, ++g) {
      EXPECT_EQ(std::tie(w->first, w->second.dev, w->second.ino, w->second.path),
                std::tie(g->first, g->second.dev, g->second.ino, g->second.path));
    }
    ASSERT_EQ(want[p].runs.size(), got[p].runs.size());
    for (size_t i = 0; i < want[p].runs.size(); ++i) {
      EXPECT_EQ(Fields(want[p].runs[i]), Fields(got[p].runs[i])) << "run " << i;
    }
  }
}

}  // namespace fathom::iotrace::testing
