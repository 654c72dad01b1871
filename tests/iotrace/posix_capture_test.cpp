// The POSIX data calls as `fathom io run` records them: every write at its offset, strided
// writes compressed into one run per time quantum, the compressed trace expanding to exactly
// what the uncompressed one holds, descriptors closed by closefrom/close_range, and errno.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <tuple>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;

class PosixCapture : public ::testing::Test {
 protected:
  fathom::testing::TempDir dir_;
};

// What a round trip must keep of an operation: op, target path, offset, size, result, errno.
using Kept = std::tuple<uint8_t, std::string, bool, int64_t, uint64_t, int64_t, uint32_t>;
std::vector<Kept> KeptOperations(const Trace& trace) {
  std::vector<Kept> kept;
  for (const Operation& o : Expand(trace)) {
    kept.emplace_back(o.op, PathOf(trace, o.target), o.has_offset, o.offset, o.size, o.result, o.err);
  }
  return kept;
}

// Runs `command` (which writes `output`) with and without compression: the same operations.
void ExpectSameOperationsCompressedOrNot(const std::string& base, const std::string& output,
                                         const std::vector<std::string>& command,
                                         const std::vector<std::string>& options = {}) {
  auto compressed = RunTraced(base + "/compressed", command, options);
  std::vector<std::string> uncompressed_options = options;
  uncompressed_options.push_back("--no-compress");
  // Made anew rather than truncated: truncating a large file just written makes ext4 flush it.
  ::unlink(output.c_str());
  auto uncompressed = RunTraced(base + "/uncompressed", command, uncompressed_options);
  ASSERT_EQ(compressed.result.exit_code, 0) << compressed.result.err;
  ASSERT_EQ(uncompressed.result.exit_code, 0) << uncompressed.result.err;
  ASSERT_EQ(compressed.traces.size(), 1u);
  ASSERT_EQ(uncompressed.traces.size(), 1u);
  EXPECT_FALSE(compressed.traces[0].process.uncompressed);
  EXPECT_TRUE(uncompressed.traces[0].process.uncompressed);
  EXPECT_EQ(uncompressed.traces[0].runs.size(), uncompressed.traces[0].Operations());
  EXPECT_EQ(KeptOperations(compressed.traces[0]), KeptOperations(uncompressed.traces[0]));
}

TEST_F(PosixCapture, TracedWritesOfEverySizeFrom1To127AreEachRecordedAtTheirOffsets) {
  const std::string file = dir_ / "data";
  auto run = RunTraced(dir_ / "traces", {Workload("sizes_writer"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.end, End::kExit);
  EXPECT_EQ(trace.Dropped(), 0u);
  EXPECT_EQ(trace.Operations(), 129u);
  EXPECT_EQ(trace.end_operations, 129u);

  const std::vector<Operation> ops = OperationsOn(trace, file);
  ASSERT_EQ(ops.size(), 129u);
  EXPECT_EQ(ops.front().op, f::kOpen);
  EXPECT_EQ(ops.front().size & (O_CREAT | O_WRONLY), static_cast<uint64_t>(O_CREAT | O_WRONLY));
  EXPECT_EQ(ops.front().result, 0);
  EXPECT_EQ(ops.back().op, f::kClose);
  EXPECT_EQ(ops.back().result, 0);
  const std::vector<Operation> writes = OfOp(ops, f::kWrite);
  ASSERT_EQ(writes.size(), 127u);
  int64_t offset = 0;
  for (size_t i = 0; i < writes.size(); ++i) {
    const uint64_t size = i + 1;
    EXPECT_TRUE(writes[i].has_offset);
    EXPECT_EQ(writes[i].offset, offset) << "write of " << size << " bytes";
    EXPECT_EQ(writes[i].size, size);
    EXPECT_EQ(writes[i].result, static_cast<int64_t>(size));
    EXPECT_EQ(writes[i].err, 0u);
    offset += static_cast<int64_t>(size);
  }
  EXPECT_EQ(BytesMoved(writes), 8128u);
}

TEST_F(PosixCapture, TheCompressedTraceOfWritesOfEverySizeExpandsToTheUncompressedOne) {
  ExpectSameOperationsCompressedOrNot(dir_.path(), dir_ / "data", {Workload("sizes_writer"), dir_ / "data"});
}

TEST_F(PosixCapture, StridedPwritesCompressToOneRunPerQuantumAndExpandToEveryOffset) {
  const std::string file = dir_ / "strided";
  auto run = RunTraced(dir_ / "traces", {Workload("strided_writer"), file}, {"--quantum-ms", "60000"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_EQ(trace.process.quantum_ns, 60'000'000'000u);

  std::vector<iotrace::Run> runs;
  for (const iotrace::Run& r : trace.runs) {
    if (r.op == f::kPwrite && PathOf(trace, r.target) == file) runs.push_back(r);
  }
  ASSERT_FALSE(runs.empty());
  // One run per quantum the writes touched: one, unless they straddle a minute of the wall clock.
  const uint64_t shift = trace.process.anchor_realtime_ns - trace.process.anchor_monotonic_ns;
  const uint64_t first_quantum = (runs.front().t_first + shift) / trace.process.quantum_ns;
  const uint64_t last_quantum = (runs.back().t_last + shift) / trace.process.quantum_ns;
  EXPECT_EQ(runs.size(), 1 + last_quantum - first_quantum);
  EXPECT_LE(runs.size(), 2u);
  EXPECT_EQ(runs.front().offset, 0);
  EXPECT_EQ(runs.front().stride, 8192);

  const std::vector<Operation> writes = OfOp(OperationsOn(trace, file), f::kPwrite);
  ASSERT_EQ(writes.size(), 1000u);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 1000; ++i) expected.push_back(i * 8192);
  EXPECT_EQ(Offsets(writes), expected);
  for (const Operation& w : writes) {
    EXPECT_EQ(w.size, 4096u);
    EXPECT_EQ(w.result, 4096);
  }
}

TEST_F(PosixCapture, TheCompressedTraceOfStridedPwritesExpandsToTheUncompressedOne) {
  ExpectSameOperationsCompressedOrNot(dir_.path(), dir_ / "strided", {Workload("strided_writer"), dir_ / "strided"},
                                      {"--quantum-ms", "60000"});
}

TEST_F(PosixCapture, WritesAfterTheProgramClosesAllItsDescriptorsAreStillRecorded) {
  const std::string file = dir_ / "data";
  auto run = RunTraced(dir_ / "traces", {Workload("closefrom_writer"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.end, End::kExit);
  EXPECT_EQ(trace.Dropped(), 0u);
  EXPECT_EQ(trace.end_operations, trace.Operations());

  const std::vector<Operation> ops = OperationsOn(trace, file);
  EXPECT_EQ(OfOp(ops, f::kOpen).size(), 3u);
  const std::vector<Operation> writes = OfOp(ops, f::kWrite);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 30; ++i) expected.push_back(i * 10);
  EXPECT_EQ(Offsets(writes), expected);
  EXPECT_EQ(BytesMoved(writes), 300u);
  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 300);  // no trace frame landed in the program's file
}

TEST_F(PosixCapture, FailedCallsAreRecordedWithTheirErrnoAndTheProgramStillSeesIt) {
  const std::string file = dir_ / "data";
  auto run = RunTraced(dir_ / "traces", {Workload("errno_keeper"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;  // the program checks errno itself
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];

  const std::vector<Operation> reads = OfOp(OperationsOn(trace, file), f::kRead);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].result, -1);
  EXPECT_EQ(reads[0].err, static_cast<uint32_t>(EBADF));
  const std::vector<Operation> fwrites = OfOp(OperationsOn(trace, file), f::kFwrite);
  ASSERT_EQ(fwrites.size(), 1u);
  EXPECT_EQ(fwrites[0].result, -1);
  EXPECT_EQ(fwrites[0].err, static_cast<uint32_t>(EBADF));
  const std::vector<Operation> opens = OfOp(OperationsOn(trace, file + ".missing"), f::kOpen);
  ASSERT_EQ(opens.size(), 1u);
  EXPECT_EQ(opens[0].result, -1);
  EXPECT_EQ(opens[0].err, static_cast<uint32_t>(ENOENT));
}

}  // namespace
}  // namespace fathom::iotrace
