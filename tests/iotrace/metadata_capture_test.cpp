// Metadata calls as `fathom io run` records them: a thousand files made, stat'ed and removed
// give exactly a thousand of each; directories made, renamed and removed; a failed stat is
// recorded with its errno, which the program still sees.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <map>
#include <set>

#include "iotrace/trace_format.h"
#include "iotrace/traced_run.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
using namespace testing;

TEST(MetadataCapture, AThousandFilesMadeStatedAndUnlinkedGiveAThousandOfEachAndFailuresTheirErrno) {
  fathom::testing::TempDir dir;
  const std::string work = dir / "work";
  ASSERT_EQ(::mkdir(work.c_str(), 0755), 0);
  auto run = RunTraced(dir / "traces", {Workload("meta_workload"), work});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;  // 4: the program saw another errno than ENOENT
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& trace = run.traces[0];
  EXPECT_TRUE(trace.problems.empty()) << trace.problems.front();
  EXPECT_EQ(trace.Dropped(), 0u);

  // Per op, the operations under work/: how many, how many failed.
  std::map<std::string, int> count, failed;
  std::map<std::string, std::set<std::string>> paths;
  for (const Operation& o : Expand(trace)) {
    const std::string path = PathOf(trace, o.target);
    if (path.rfind(work + "/", 0) != 0) continue;
    ++count[OpName(o.op)];
    paths[OpName(o.op)].insert(path);
    if (o.result < 0) {
      ++failed[OpName(o.op)];
      EXPECT_EQ(path, work + "/missing");
      EXPECT_EQ(o.err, static_cast<uint32_t>(ENOENT)) << OpName(o.op);
    } else {
      EXPECT_EQ(o.err, 0u) << OpName(o.op) << " " << path;
    }
  }
  EXPECT_EQ(count, (std::map<std::string, int>{{"open", 1000}, {"close", 1000}, {"stat", 1005}, {"unlink", 1000},
                                                {"mkdir", 10}, {"rename", 10}, {"rmdir", 10}}));
  EXPECT_EQ(failed, (std::map<std::string, int>{{"stat", 5}}));
  EXPECT_EQ(paths["open"].size(), 1000u);
  EXPECT_EQ(paths["stat"].size(), 1001u);
  EXPECT_EQ(paths["unlink"], paths["open"]);
  EXPECT_EQ(paths["rmdir"].count(work + "/e3"), 1u);

  for (const Operation& o : OfOp(Expand(trace), f::kOpen)) {
    if (PathOf(trace, o.target).rfind(work + "/", 0) == 0) {
      EXPECT_EQ(o.size & (O_CREAT | O_WRONLY), static_cast<uint64_t>(O_CREAT | O_WRONLY));
    }
  }
  // Each rename names where it went.
  for (const Operation& o : OfOp(Expand(trace), f::kRename)) {
    const std::string from = PathOf(trace, o.target);
    EXPECT_EQ(PathOf(trace, o.aux), work + "/e" + from.substr(from.size() - 1));
  }
}

}  // namespace
}  // namespace fathom::iotrace
