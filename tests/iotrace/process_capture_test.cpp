// Process images under `fathom io run`: a forked child writes its own trace, an exec ends one
// trace and starts the next, vfork + exec leaves the parent's trace whole, a program without
// I/O still leaves a trace, io_uring marks a trace partial, and a static program is refused.
#include <fcntl.h>
#include <gtest/gtest.h>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;

class ProcessCapture : public ::testing::Test {
 protected:
  fathom::testing::TempDir dir_;
};

uint64_t ChildPid(const std::string& out) {
  const size_t at = out.find("child ");
  return at == std::string::npos ? 0 : std::stoull(out.substr(at + 6));
}

// The operations of `trace` as "op path size" strings, for messages and exact comparisons.
std::vector<std::string> Described(const Trace& trace) {
  std::vector<std::string> out;
  for (const Operation& o : Expand(trace)) {
    out.push_back(OpName(o.op) + " " + PathOf(trace, o.target) + " " + std::to_string(o.size));
  }
  return out;
}

TEST_F(ProcessCapture, AForkedChildWritesItsOwnTraceWithOnlyItsOwnOperations) {
  const std::string parent_file = dir_ / "parent", child_file = dir_ / "child";
  auto run = RunTraced(dir_ / "traces", {Workload("fork_writer"), parent_file, child_file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 2u);
  const uint64_t child_pid = ChildPid(run.result.out);
  const Trace& parent = run.traces[0].process.pid == child_pid ? run.traces[1] : run.traces[0];
  const Trace& child = run.traces[0].process.pid == child_pid ? run.traces[0] : run.traces[1];
  ASSERT_EQ(child.process.pid, child_pid);
  EXPECT_NE(parent.process.pid, child_pid);
  EXPECT_EQ(child.process.ppid, parent.process.pid);
  EXPECT_EQ(parent.end, End::kExit);
  EXPECT_EQ(child.end, End::kExit);

  std::vector<std::string> parent_expected = {"open " + parent_file + " " + std::to_string(O_CREAT | O_WRONLY | O_TRUNC)};
  for (int i = 0; i < 25; ++i) parent_expected.push_back("write " + parent_file + " 100");
  parent_expected.push_back("close " + parent_file + " 0");
  EXPECT_EQ(Described(parent), parent_expected);
  std::vector<std::string> child_expected = {"open " + child_file + " " + std::to_string(O_CREAT | O_WRONLY | O_TRUNC)};
  for (int i = 0; i < 10; ++i) child_expected.push_back("write " + child_file + " 200");
  child_expected.push_back("close " + child_file + " 0");
  EXPECT_EQ(Described(child), child_expected);
  EXPECT_EQ(Offsets(OfOp(Expand(parent), f::kWrite)).back(), 2400);
  EXPECT_EQ(Offsets(OfOp(Expand(child), f::kWrite)).back(), 1800);
}

TEST_F(ProcessCapture, AnExecEndsTheTraceOfTheOldImageAndTheNewImageStartsAnother) {
  const std::string file = dir_ / "data";
  auto run = RunTraced(dir_ / "traces", {Workload("exec_writer"), file, Workload("no_io")});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 2u);
  const Trace& before = run.traces[0];
  const Trace& after = run.traces[1];
  EXPECT_EQ(before.process.pid, after.process.pid);
  EXPECT_LT(before.process.anchor_monotonic_ns, after.process.anchor_monotonic_ns);
  EXPECT_EQ(before.process.exe, Workload("exec_writer"));
  EXPECT_EQ(after.process.exe, Workload("no_io"));
  EXPECT_EQ(before.end, End::kExec);
  EXPECT_EQ(after.end, End::kExit);
  EXPECT_EQ(Offsets(OfOp(OperationsOn(before, file), f::kWrite)), (std::vector<int64_t>{0, 10, 20}));
  EXPECT_EQ(before.Operations(), 5u);  // open, 3 writes, close
  EXPECT_EQ(after.Operations(), 0u);
}

TEST_F(ProcessCapture, VforkAndExecLeaveTheParentsTraceWholeAndTheChildTracesItsNewImage) {
  const std::string file = dir_ / "data";
  auto run = RunTraced(dir_ / "traces", {Workload("vfork_exec"), file, Workload("no_io")});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 2u);
  const uint64_t child_pid = ChildPid(run.result.out);
  const Trace& parent = run.traces[0].process.pid == child_pid ? run.traces[1] : run.traces[0];
  const Trace& child = run.traces[0].process.pid == child_pid ? run.traces[0] : run.traces[1];
  ASSERT_EQ(child.process.pid, child_pid);
  EXPECT_EQ(child.process.ppid, parent.process.pid);
  EXPECT_EQ(child.process.exe, Workload("no_io"));
  EXPECT_EQ(child.end, End::kExit);
  EXPECT_EQ(child.Operations(), 0u);
  EXPECT_EQ(parent.end, End::kExit);  // the child's exec did not end the parent's trace
  EXPECT_TRUE(parent.problems.empty()) << parent.problems.front();
  EXPECT_EQ(Offsets(OfOp(OperationsOn(parent, file), f::kWrite)),
            (std::vector<int64_t>{0, 10, 20, 30, 40, 50, 60, 70}));
  EXPECT_EQ(parent.Operations(), 10u);
  EXPECT_EQ(parent.end_operations, 10u);
}

TEST_F(ProcessCapture, AProgramWithoutIoLeavesOneTraceThatEndsAtItsExitWithNoOperations) {
  auto run = RunTraced(dir_ / "traces", {Workload("no_io")});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.has_process);
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.end, End::kExit);
  EXPECT_EQ(trace.Operations(), 0u);
  EXPECT_EQ(trace.end_operations, 0u);
  EXPECT_EQ(trace.process.job, "job");
  EXPECT_EQ(trace.process.argv, (std::vector<std::string>{Workload("no_io")}));
}

TEST_F(ProcessCapture, AnIoUringSetupThroughSyscallMarksTheTracePartial) {
  auto run = RunTraced(dir_ / "traces", {Workload("io_uring_setup")});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  EXPECT_EQ(run.traces[0].io_uring_calls, 1u);
  EXPECT_EQ(run.traces[0].aio_calls, 0u);
  EXPECT_EQ(run.traces[0].end, End::kExit);
}

TEST_F(ProcessCapture, AStaticallyLinkedProgramIsRefusedWithExitStatus2) {
  auto r = fathom::testing::Run(IoRunCommand(dir_ / "traces", {Workload("static_program")}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("fathom io run: " + Workload("static_program") + " is statically linked"), std::string::npos)
      << r.err;
  EXPECT_FALSE(FindTraceFiles(dir_ / "traces").ok());  // nothing ran, nothing was written
}

}  // namespace
}  // namespace fathom::iotrace
