// A traced program killed with SIGKILL: its trace stays readable, has no end record, and
// holds every write it made up to at most the last quantum before the kill.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <utility>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;
using Clock = std::chrono::steady_clock;

TEST(KillCapture, AProgramKilledWithSigkillLeavesEveryWriteUpToItsLastQuantum) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "data";
  // Quanta of 200 ms: the writer closes the runs of a finished quantum within 100 ms after
  // it ends, so a write is in the file at most 300 ms after it was made.
  fathom::testing::Subprocess fathom(
      IoRunCommand(dir / "traces", {Workload("steady_writer"), file}, {"--quantum-ms", "200"}));
  const auto pid_line = fathom.ReadLine(std::chrono::seconds(30));
  ASSERT_TRUE(pid_line && pid_line->rfind("pid ", 0) == 0) << fathom.stderr_text();
  const pid_t pid = std::stoi(pid_line->substr(4));

  // The program reports its writes every 10 ms; it is killed 1.5 s after its first report.
  std::vector<std::pair<Clock::time_point, uint64_t>> reports;
  Clock::time_point first;
  for (;;) {
    const auto line = fathom.ReadLine(std::chrono::seconds(10));
    ASSERT_TRUE(line && line->rfind("count ", 0) == 0) << fathom.stderr_text();
    const Clock::time_point now = Clock::now();
    if (reports.empty()) first = now;
    reports.emplace_back(now, std::stoull(line->substr(6)));
    if (now - first >= std::chrono::milliseconds(1500)) break;
  }
  const Clock::time_point kill_time = Clock::now();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(fathom.Wait(), 128 + SIGKILL);
  // The writes the program had made 0.5 s before the kill.
  uint64_t made = 0;
  for (const auto& [when, count] : reports) {
    if (when <= kill_time - std::chrono::milliseconds(500)) made = count;
  }
  ASSERT_GT(made, 0u);

  const std::vector<Trace> traces = ReadTraces(dir / "traces/job");
  ASSERT_EQ(traces.size(), 1u);
  const Trace& trace = traces[0];
  EXPECT_TRUE(trace.has_process);
  EXPECT_EQ(trace.end, End::kNone);
  EXPECT_EQ(trace.Dropped(), 0u);
  const std::vector<Operation> writes = OfOp(OperationsOn(trace, file), f::kWrite);
  EXPECT_GE(writes.size(), made);
  // The writes recorded are the program's first ones, each at its offset, none missing.
  for (size_t i = 0; i < writes.size(); ++i) {
    ASSERT_EQ(writes[i].offset, static_cast<int64_t>(64 * i));
    ASSERT_EQ(writes[i].result, 64);
  }
  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_LE(64 * writes.size(), static_cast<uint64_t>(st.st_size));
}

}  // namespace
}  // namespace fathom::iotrace
