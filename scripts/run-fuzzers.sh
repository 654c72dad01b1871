#!/usr/bin/env bash
# run-fuzzers.sh — build the libFuzzer targets (clang-14, ASan+UBSan) and run each for a
# fixed time; exit non-zero if any finds a crash, a leak, a sanitizer report or a violated
# property.
#
#   scripts/run-fuzzers.sh [SECONDS]     # SECONDS per fuzzer: argument, else $FUZZ_SECONDS, else 20
#
# Environment: FUZZ_BUILD (build directory, default build-fuzz), FUZZ_DEBUG (the debug
# information of that build: -g, the default, or -g1 for line tables only), FUZZ_ONLY (space-separated
# fuzzer names to run, default all). Each fuzzer starts from its seed corpus
# fuzz/corpus/<fuzzer>/ (never written to) plus what earlier runs found
# ($FUZZ_BUILD/fuzz-work/<fuzzer>/), with fuzz/<fuzzer>.dict when present. A crashing input
# is saved as $FUZZ_BUILD/fuzz-artifacts/<fuzzer>-crash-...; replay it with
# `$FUZZ_BUILD/fuzz/<fuzzer> <file>`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-${FUZZ_SECONDS:-20}}"
build="${FUZZ_BUILD:-$root/build-fuzz}"
case "$seconds" in
  '' | *[!0-9]*)
    echo "run-fuzzers.sh: seconds per fuzzer must be a whole number, got '$seconds'" >&2
    exit 2
    ;;
esac

for tool in clang-14 clang++-14 cmake ninja; do
  if ! command -v "$tool" >/dev/null; then
    echo "run-fuzzers.sh: $tool not found; install it (scripts/install-deps.sh)" >&2
    exit 2
  fi
done

echo "== building fuzzers in $build"
debug="${FUZZ_DEBUG:--g}"
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 $debug -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $debug -DNDEBUG" \
  -DFATHOM_BUILD_FUZZERS=ON -DFATHOM_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target fathom_fuzzers

if [[ -n "${FUZZ_ONLY:-}" ]]; then
  read -r -a fuzzers <<<"$FUZZ_ONLY"
else
  fuzzers=()
  for src in "$root"/fuzz/fuzz_*.cpp; do
    name="$(basename "$src" .cpp)"
    fuzzers+=("$name")
  done
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
failed=()
summary=()
for name in "${fuzzers[@]}"; do
  exe="$build/fuzz/$name"
  if [[ ! -x "$exe" ]]; then
    echo "run-fuzzers.sh: $exe was not built" >&2
    failed+=("$name")
    continue
  fi
  work="$build/fuzz-work/$name"
  seeds="$root/fuzz/corpus/$name"
  log="$build/fuzz-logs/$name.log"
  mkdir -p "$work"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$build/fuzz-artifacts/$name-")
  [[ -f "$root/fuzz/$name.dict" ]] && args+=(-dict="$root/fuzz/$name.dict")
  corpora=("$work")
  [[ -d "$seeds" ]] && corpora+=("$seeds")

  echo "== $name: ${seconds}s"
  start=$(date +%s)
  if "$exe" "${args[@]}" "${corpora[@]}" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$name")
    grep -E "ERROR|SUMMARY|property violated|Test unit written" "$log" >&2 || tail -n 30 "$log" >&2
  fi
  elapsed=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  summary+=("$(printf '%-24s %-7s %5ss %12s execs %9s execs/s' "$name" "$status" "$elapsed" \
    "${runs:-?}" "${rate:-?}")")
done

echo "== fuzzing summary (logs in $build/fuzz-logs)"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]} > 0)); then
  echo "run-fuzzers.sh: failed: ${failed[*]}" >&2
  exit 1
fi
