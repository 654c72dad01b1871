// The stdio calls as `fathom io run` records them: every fopen, fwrite, fprintf, fputs, putc,
// fseek, fread, fscanf, fgets, getc and fclose, each at stdio's own offset in the stream.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <tuple>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;

// An operation as the test states it: op, offset (-1: none), size, result.
using Seen = std::tuple<std::string, int64_t, uint64_t, int64_t>;

TEST(StdioCapture, EveryStdioCallIsRecordedAtTheStreamsOffsetWithItsBytes) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "text";
  auto run = RunTraced(dir / "traces", {Workload("stdio_workload"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.end, End::kExit);
  EXPECT_EQ(trace.Dropped(), 0u);

  std::vector<Seen> seen;
  for (const Operation& o : OperationsOn(trace, file)) {
    EXPECT_EQ(o.err, 0u) << OpName(o.op);
    seen.emplace_back(OpName(o.op), o.has_offset ? o.offset : -1, o.size, o.result);
  }
  std::vector<Seen> expected;
  expected.emplace_back("fopen", -1, O_WRONLY | O_CREAT | O_TRUNC, 0);
  for (int i = 0; i < 10; ++i) expected.emplace_back("fwrite", 100 * i, 100, 100);
  expected.emplace_back("fprintf", 1000, 6, 6);
  expected.emplace_back("fputs", 1006, 6, 6);
  for (int i = 0; i < 4; ++i) expected.emplace_back("putc", 1012 + i, 1, 1);
  expected.emplace_back("fclose", -1, 0, 0);
  expected.emplace_back("fopen", -1, O_RDONLY, 0);
  expected.emplace_back("fseek", 500, 0, 0);
  for (int i = 0; i < 5; ++i) expected.emplace_back("fread", 500 + 100 * i, 100, 100);
  expected.emplace_back("fscanf", 1000, 6, 6);  // "12345\n"
  expected.emplace_back("fgets", 1006, 63, 6);  // "hello\n"
  for (int i = 0; i < 4; ++i) expected.emplace_back("getc", 1012 + i, 1, 1);
  expected.emplace_back("getc", 1016, 1, 0);  // the end of the file
  expected.emplace_back("fclose", -1, 0, 0);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(trace.Operations(), expected.size());

  // The bytes written through the stream are the file's.
  EXPECT_EQ(BytesMoved(OfOp(OperationsOn(trace, file), f::kFwrite)) +
                BytesMoved(OfOp(OperationsOn(trace, file), f::kFprintf)) +
                BytesMoved(OfOp(OperationsOn(trace, file), f::kFputs)) +
                BytesMoved(OfOp(OperationsOn(trace, file), f::kPutc)),
            1016u);
}

}  // namespace
}  // namespace fathom::iotrace
