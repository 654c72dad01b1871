// fuzz_job_stats — Lustre's job_stats text (every generation) on arbitrary input.
//
// Reading must never crash or read outside the input; every problem names a line of the
// input; a text compared with itself changes nothing: no job is reset or expired, and every
// counter's growth is zero.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "stats_text_checks.h"

using fathom::fuzz::Violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const fathom::lustre::JobStatsText t = fathom::lustre::ParseJobStats(text);
  fathom::fuzz::ProblemsNameLinesOf(text, t.problems);
  std::set<std::string> ids;
  for (const auto& j : t.jobs) ids.insert(j.job_id);
  if (ids.size() != t.jobs.size()) return 0;  // a repeated id has no single growth
  const fathom::lustre::JobStatsChange same = fathom::lustre::DiffJobStats(t, t);
  if (!same.expired.empty()) Violated("a job expired between a text and itself");
  for (const auto& d : same.jobs) {
    if (d.reset) Violated("a job reset between a text and itself");
    for (const auto& [name, c] : d.counters) {
      if (c.samples != 0 || c.sum != 0 || c.sumsq != 0) Violated("a counter grew between a text and itself");
    }
  }
  return 0;
}
