// traced_run.h — what the capture tests share: run a workload under the real `fathom io run`
// and read back the traces it left, and pick operations out of them by file.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fathom/iotrace.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::iotrace::testing {

// A workload program of tests/iotrace/workloads/.
inline std::string Workload(const std::string& name) {
  return std::string(FATHOM_BUILD_DIR) + "/tests/io-workloads/" + name;
}

// The fathom command line that runs `command` under the tracer, its traces filed under
// `out`/job.
inline std::vector<std::string> IoRunCommand(const std::string& out, const std::vector<std::string>& command,
                                             const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv = {fathom::testing::FathomBinary(), "io", "run", "--job", "job", "--out", out};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

// Every trace under `dir`, read, ordered by process then by the start of its image.
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
  std::sort(traces.begin(), traces.end(), [](const Trace& a, const Trace& b) {
    return a.process.pid != b.process.pid ? a.process.pid < b.process.pid
                                          : a.process.anchor_monotonic_ns < b.process.anchor_monotonic_ns;
  });
  return traces;
}

struct TracedRun {
  fathom::testing::RunResult result;
  std::vector<Trace> traces;
};

// Runs `command` under `fathom io run` with traces in `out`, and reads them.
inline TracedRun RunTraced(const std::string& out, const std::vector<std::string>& command,
                           const std::vector<std::string>& options = {}) {
  TracedRun run;
  run.result = fathom::testing::Run(IoRunCommand(out, command, options), std::chrono::seconds(120));
  run.traces = ReadTraces(out + "/job");
  return run;
}

// The path an operation's target was seen by.
inline std::string PathOf(const Trace& trace, uint32_t id) {
  auto it = trace.objects.find(id);
  return it == trace.objects.end() ? std::string() : it->second.path;
}

// The operations of `trace` on `path`, in the order Expand gives.
inline std::vector<Operation> OperationsOn(const Trace& trace, const std::string& path) {
  std::vector<Operation> ops;
  for (const Operation& o : Expand(trace)) {
    if (PathOf(trace, o.target) == path) ops.push_back(o);
  }
  return ops;
}

inline std::vector<Operation> OfOp(const std::vector<Operation>& ops, uint8_t op) {
  std::vector<Operation> out;
  for (const Operation& o : ops) {
    if (o.op == op) out.push_back(o);
  }
  return out;
}

inline std::vector<int64_t> Offsets(const std::vector<Operation>& ops) {
  std::vector<int64_t> offsets;
  for (const Operation& o : ops) offsets.push_back(o.offset);
  return offsets;
}

inline uint64_t BytesMoved(const std::vector<Operation>& ops) {
  uint64_t total = 0;
  for (const Operation& o : ops) total += o.result > 0 ? static_cast<uint64_t>(o.result) : 0;
  return total;
}

}  // namespace fathom::iotrace::testing
