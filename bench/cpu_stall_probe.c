// cpu_stall_probe — measures how often this machine's CPUs run far slower than they can.
//
// A virtual machine's CPUs can be taken away by the host for a while without the guest
// seeing it as steal time; every process then runs many times slower, which no tuning of the
// programs under test can hide. The probe runs a fixed unit of arithmetic (about 30 us) once
// per --interval-us and times it against the unit's calibrated (median) duration. A window of
// --window-ms counts as stalled when some unit in it took more than --factor times the median.
// It costs about 3 % of one CPU at the default interval. It runs at the lowest real-time
// priority when permitted (root), so that the machine's own busy threads cannot delay a unit
// and only the host's stalls are counted; the JSON says whether it could ("realtime").
//
//   cpu_stall_probe [--seconds S] [--interval-us N] [--window-ms N] [--factor F]
//
// Runs --seconds (0: until SIGINT or SIGTERM), then prints one JSON line: the unit's duration,
// windows seen and stalled, the worst slowdown, and each stalled window's start (seconds since
// the probe started, and CLOCK_REALTIME ns to align it with other timelines).
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kCalibrationRuns = 51, kMaxStalls = 1000, kUnitSteps = 20000 };

static volatile sig_atomic_t stop_requested = 0;
static volatile uint64_t sink;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static int64_t now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

// The fixed unit of work: a dependent chain of multiplications the compiler cannot drop.
static int64_t timed_unit(void) {
  const int64_t start = now_ns(CLOCK_MONOTONIC);
  uint64_t x = 1;
  for (int i = 0; i < kUnitSteps; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = x;
  return now_ns(CLOCK_MONOTONIC) - start;
}

static int compare_i64(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

static void usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--seconds S] [--interval-us N] [--window-ms N] [--factor F]\n"
          "  --seconds S       run S seconds (default 0: until SIGINT or SIGTERM)\n"
          "  --interval-us N   one timed unit every N microseconds (default 1000)\n"
          "  --window-ms N     report per window of N milliseconds (default 50)\n"
          "  --factor F        a unit slower than F x its median stalls its window (default 4)\n",
          argv0);
}

int main(int argc, char** argv) {
  double seconds = 0, factor = 4;
  long interval_us = 1000, window_ms = 50;
  for (int i = 1; i < argc; ++i) {
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(argv[0]);
      return 0;
    }
    const int known = strcmp(argv[i], "--seconds") == 0 || strcmp(argv[i], "--factor") == 0 ||
                      strcmp(argv[i], "--interval-us") == 0 || strcmp(argv[i], "--window-ms") == 0;
    if (!known || value == NULL) {
      fprintf(stderr, known ? "cpu_stall_probe: %s needs a value\n"
                            : "cpu_stall_probe: unknown option %s\n", argv[i]);
      usage(argv[0]);
      return 2;
    }
    char* end = NULL;
    if (strcmp(argv[i], "--seconds") == 0) {
      seconds = strtod(value, &end);
    } else if (strcmp(argv[i], "--factor") == 0) {
      factor = strtod(value, &end);
    } else if (strcmp(argv[i], "--interval-us") == 0) {
      interval_us = strtol(value, &end, 10);
    } else {
      window_ms = strtol(value, &end, 10);
    }
    if (end == value || *end != '\0' || seconds < 0 || factor <= 1 || interval_us < 1 ||
        window_ms < 1) {
      fprintf(stderr, "cpu_stall_probe: bad value '%s' for %s\n", value, argv[i]);
      return 2;
    }
    ++i;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  const struct sched_param lowest_realtime = {.sched_priority = 1};
  const int realtime = sched_setscheduler(0, SCHED_FIFO, &lowest_realtime) == 0;

  int64_t runs[kCalibrationRuns];
  for (int i = 0; i < kCalibrationRuns; ++i) runs[i] = timed_unit();
  qsort(runs, kCalibrationRuns, sizeof runs[0], compare_i64);
  const int64_t median = runs[kCalibrationRuns / 2];

  static int64_t stall_at_ns[kMaxStalls];
  static double stall_rel[kMaxStalls], stall_factor[kMaxStalls];
  int stalls = 0;
  uint64_t windows = 0, stalled = 0;
  double worst = 0, window_worst = 0;
  const int64_t start = now_ns(CLOCK_MONOTONIC);
  const int64_t window_ns = (int64_t)window_ms * 1000000;
  int64_t window_start = start, window_real = now_ns(CLOCK_REALTIME);
  const struct timespec pause = {interval_us / 1000000, (interval_us % 1000000) * 1000};
  while (!stop_requested && (seconds == 0 || now_ns(CLOCK_MONOTONIC) - start < seconds * 1e9)) {
    const double slowdown = (double)timed_unit() / (double)median;
    if (slowdown > window_worst) window_worst = slowdown;
    const int64_t now = now_ns(CLOCK_MONOTONIC);
    if (now - window_start >= window_ns) {
      ++windows;
      if (window_worst > factor) {
        ++stalled;
        if (stalls < kMaxStalls) {
          stall_at_ns[stalls] = window_real;
          stall_rel[stalls] = (double)(window_start - start) / 1e9;
          stall_factor[stalls] = window_worst;
          ++stalls;
        }
      }
      if (window_worst > worst) worst = window_worst;
      window_worst = 0;
      window_start = now;
      window_real = now_ns(CLOCK_REALTIME);
    }
    nanosleep(&pause, NULL);
  }

  printf("{\"realtime\":%s,\"unit_us\":%.1f,\"seconds\":%.2f,\"window_ms\":%ld,\"factor\":%.1f,\"windows\":%llu,"
         "\"stalled_windows\":%llu,\"worst_slowdown\":%.1f,\"stalls\":[",
         realtime ? "true" : "false", (double)median / 1e3, (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e9, window_ms, factor,
         (unsigned long long)windows, (unsigned long long)stalled, worst);
  for (int i = 0; i < stalls; ++i) {
    printf("%s{\"t\":%.3f,\"realtime_ns\":%lld,\"slowdown\":%.1f}", i ? "," : "", stall_rel[i],
           (long long)stall_at_ns[i], stall_factor[i]);
  }
  printf("]}\n");
  return 0;
}
