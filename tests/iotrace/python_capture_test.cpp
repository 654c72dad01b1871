// A Python program under `fathom io run`: numpy.save's file is opened and written, and the
// writes recorded on it (Python's own and numpy's through stdio) add up to the file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;

TEST(PythonCapture, NumpySaveIsRecordedAsAnOpenAndWritesCoveringTheWholeFile) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "array.npy";
  // Debian's interpreter, which python3-numpy is installed for (scripts/install-deps.sh).
  auto run = RunTraced(dir / "traces", {"/usr/bin/python3", "-c",
                                        "import numpy; numpy.save('" + file + "', numpy.arange(1000, dtype='<i8'))"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.end, End::kExit);
  EXPECT_EQ(trace.Dropped(), 0u);

  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  ASSERT_EQ(st.st_size, 128 + 8000);  // a version 1.0 header and 1000 little-endian int64

  const std::vector<Operation> ops = OperationsOn(trace, file);
  const std::vector<Operation> opens = OfOp(ops, f::kOpen);
  ASSERT_EQ(opens.size(), 1u);
  EXPECT_EQ(opens[0].result, 0);
  EXPECT_EQ(opens[0].size & (O_CREAT | O_WRONLY | O_TRUNC), static_cast<uint64_t>(O_CREAT | O_WRONLY | O_TRUNC));

  // The data written, in order, covers the file from its first byte to its last.
  std::vector<Operation> writes;
  for (const Operation& o : ops) {
    if (f::Info(o.op).op_class == f::OpClass::kWrite) writes.push_back(o);
  }
  ASSERT_FALSE(writes.empty());
  EXPECT_EQ(BytesMoved(writes), static_cast<uint64_t>(st.st_size));
  int64_t end = 0;
  for (const Operation& w : writes) {
    EXPECT_EQ(w.offset, end) << OpName(w.op);
    EXPECT_EQ(w.result, static_cast<int64_t>(w.size)) << OpName(w.op);
    end = w.offset + w.result;
  }
  EXPECT_EQ(end, st.st_size);
}

}  // namespace
}  // namespace fathom::iotrace
