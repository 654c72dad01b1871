// timed_run.h — what the process-level benchmarks share: run a program as a user would, with
// its output to /dev/null or kept in memory, and measure its wall time and peak RSS.
#pragma once

#include <string>
#include <vector>

namespace fathom::bench {

struct TimedRun {
  bool started = false;   // false: the program could not be run (not installed)
  int exit_code = -1;     // -1 when killed by a signal
  double seconds = 0;     // wall time from spawn to exit
  long peak_rss_kb = 0;   // the child's peak resident set
  std::string out;        // stdout, when kept
};

// Runs argv (argv[0] searched in PATH) with stdin from /dev/null; stdout kept in `out` when
// `keep_output`, else sent to /dev/null; stderr inherited.
TimedRun RunTimed(const std::vector<std::string>& argv, bool keep_output = false);

// The best (shortest) of `repeat` runs; the last run's output.
TimedRun BestOf(int repeat, const std::vector<std::string>& argv, bool keep_output = false);

// Whether `program` is found in PATH.
bool Installed(const std::string& program);

// The median of `values` (0 when there are none).
double Median(std::vector<double> values);

}  // namespace fathom::bench
