// Threads and signals under `fathom io run`: every thread's writes are recorded under its
// own tid, and a signal handler that writes while the program writes never deadlocks the
// tracer and is either recorded or counted as dropped, call for call.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;

TEST(ThreadCapture, FourThreadsWritingTenThousandRecordsEachGiveFortyThousandWritesUnderFourTids) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("threads_writer"), dir.path()});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.Dropped(), 0u);
  EXPECT_EQ(trace.end, End::kExit);

  const std::vector<Operation> writes = OfOp(Expand(trace), f::kWrite);
  EXPECT_EQ(writes.size(), 40'000u);
  std::map<uint64_t, std::set<std::string>> files_of_tid;
  std::map<std::string, std::vector<int64_t>> offsets_of_file;
  for (const Operation& o : writes) {
    files_of_tid[o.tid].insert(PathOf(trace, o.target));
    offsets_of_file[PathOf(trace, o.target)].push_back(o.offset);
    EXPECT_EQ(o.result, 16);
  }
  ASSERT_EQ(files_of_tid.size(), 4u);
  EXPECT_EQ(files_of_tid.count(trace.process.pid), 0u);  // not the main thread's
  std::set<std::string> files;
  for (const auto& [tid, of_tid] : files_of_tid) {
    EXPECT_EQ(of_tid.size(), 1u) << "tid " << tid;
    files.insert(of_tid.begin(), of_tid.end());
  }
  EXPECT_EQ(files, (std::set<std::string>{dir / "thread0", dir / "thread1", dir / "thread2", dir / "thread3"}));
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 10'000; ++i) expected.push_back(16 * i);
  for (const auto& [file, offsets] : offsets_of_file) EXPECT_EQ(offsets, expected) << file;
}

TEST(ThreadCapture, WritesOfASignalHandlerAreEachRecordedOrCountedAsDroppedAndNeverDeadlock) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "main", handler_file = dir / "handler";
  const long calls = 100'000;
  auto run = RunTraced(dir / "traces", {Workload("signal_writer"), file, handler_file, std::to_string(calls)});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  const size_t at = run.result.out.find("handled ");
  ASSERT_NE(at, std::string::npos) << run.result.out;
  const uint64_t handled = std::stoull(run.result.out.substr(at + 8));
  ASSERT_GT(handled, 0u);
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.end, End::kExit);

  // The program's own calls are never the ones dropped.
  EXPECT_EQ(OfOp(OperationsOn(trace, file), f::kPwrite).size(), static_cast<size_t>(calls));
  const uint64_t recorded = OfOp(OperationsOn(trace, handler_file), f::kPwrite).size();
  EXPECT_EQ(recorded + trace.dropped_in_signal_handler, handled)
      << recorded << " recorded, " << trace.dropped_in_signal_handler << " dropped";
  EXPECT_EQ(trace.dropped_buffer_full + trace.dropped_too_many_threads, 0u);
  EXPECT_EQ(trace.end_dropped, trace.Dropped());
}

// A handler's open, write and close while its thread is closing or dup'ing descriptors (the
// tracer's descriptor table) must neither wait for the interrupted thread nor be lost.
TEST(ThreadCapture, ASignalHandlerOpeningAndClosingFilesWhileItsThreadClosesDescriptorsNeverDeadlocks) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "handler";
  auto run = RunTraced(dir / "traces", {Workload("signal_closer"), file, "5000"});
  ASSERT_EQ(run.result.exit_code, 0) << "the workload did not finish (alarm after 20 s): " << run.result.err;
  const size_t at = run.result.out.find("handled ");
  ASSERT_NE(at, std::string::npos) << run.result.out;
  const uint64_t handled = std::stoull(run.result.out.substr(at + 8));
  ASSERT_GT(handled, 0u);
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  // A handler that interrupts the tracer has its three calls (open, write, close) counted as
  // dropped; any other has its write recorded on the file.
  const uint64_t recorded = OfOp(OperationsOn(trace, file), f::kWrite).size();
  EXPECT_EQ(trace.dropped_in_signal_handler % 3, 0u);
  EXPECT_EQ(recorded + trace.dropped_in_signal_handler / 3, handled)
      << recorded << " recorded, " << trace.dropped_in_signal_handler << " dropped";
}

}  // namespace
}  // namespace fathom::iotrace
