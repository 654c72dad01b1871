// h5_run.h — what the h5prov capture tests share: run a program under the real
// `fathom h5 run` (or with libfathom-h5.so preloaded by hand) and read back its traces.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fathom/h5prov.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::h5prov::testing {

// A workload program of tests/h5prov/workloads/.
inline std::string Workload(const std::string& name) {
  return std::string(FATHOM_BUILD_DIR) + "/tests/h5-workloads/" + name;
}

inline std::string TracerLibrary() { return std::string(FATHOM_BUILD_DIR) + "/lib/fathom/libfathom-h5.so"; }

// Every trace under `dir`, read.
inline std::vector<Trace> ReadTraces(const std::string& dir) {
  std::vector<Trace> traces;
  auto files = FindTraceFiles(dir);
  EXPECT_TRUE(files.ok()) << files.status().message();
  if (!files.ok()) return traces;
  for (const std::string& file : *files) {
    auto trace = ReadTrace(file);
    EXPECT_TRUE(trace.ok()) << trace.status().message();
    if (trace.ok()) traces.push_back(std::move(*trace));
  }
  return traces;
}

struct TracedRun {
  fathom::testing::RunResult result;
  std::vector<Trace> traces;
};

// Runs `command` under `fathom h5 run --out out --job job`, and reads its traces.
inline TracedRun RunTraced(const std::string& out, const std::vector<std::string>& command) {
  std::vector<std::string> argv = {fathom::testing::FathomBinary(), "h5", "run", "--job", "job", "--out", out, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  TracedRun run;
  run.result = fathom::testing::Run(argv, std::chrono::seconds(120));
  run.traces = ReadTraces(out + "/job");
  return run;
}

// The names of the calls' functions, in order.
inline std::vector<std::string> OpNames(const Trace& trace) {
  std::vector<std::string> names;
  for (const Call& c : trace.calls) names.push_back(OpName(c.op));
  return names;
}

// The calls of function `name`.
inline std::vector<Call> CallsOf(const Trace& trace, const std::string& name) {
  std::vector<Call> calls;
  for (const Call& c : trace.calls) {
    if (OpName(c.op) == name) calls.push_back(c);
  }
  return calls;
}

// The object of `id` (an empty one if the trace has none).
inline Object ObjectOf(const Trace& trace, uint64_t id) {
  auto it = trace.objects.find(id);
  return it == trace.objects.end() ? Object{} : it->second;
}

// What was counted on object `id` when it closed (how is "" if it has no record).
inline Closed ClosedOf(const Trace& trace, uint64_t id) {
  for (const Closed& c : trace.closed) {
    if (c.id == id) return c;
  }
  return Closed{};
}

}  // namespace fathom::h5prov::testing
