// Following HDF5 traces as they are written: ProvenanceFollower on a real trace (known_ops
// under libfathom-h5.so) grown a piece at a time, and `fathom h5 events --follow` on an h5py
// program still running, into a real event store, killed with SIGKILL and started again.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "h5prov/h5_format.h"
#include "h5prov/h5_run.h"

namespace fathom::h5prov {
namespace {

using namespace testing;
using namespace std::chrono_literals;
namespace f = format;

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Events as JSON, without ids (a store's are its own).
std::vector<nlohmann::json> WithoutIds(const std::vector<Event>& events) {
  std::vector<nlohmann::json> out;
  for (Event e : events) {
    e.id = 0;
    out.push_back({{"ts", e.ts_ns}, {"mask", e.mask}, {"path", e.path}, {"root", e.root}, {"source", e.source},
                   {"attrs", e.attrs}});
  }
  return out;
}

TEST(H5Follow, AGrowingTraceGivesEachFramesEventsOnceWholeAndNothingTwiceAfterARestart) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("known_ops"), dir / "known.h5"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const std::vector<nlohmann::json> expected = WithoutIds(ProvenanceEvents(run.traces[0]));
  ASSERT_EQ(expected.size(), 8u);
  const std::string bytes = Bytes(run.traces[0].file);
  // The frames' ends: the process record's, the calls', the end record's.
  std::vector<size_t> ends;
  for (size_t at = f::kFileHeaderSize; at < bytes.size();) {
    at += f::kFrameHeaderSize + f::GetU32(reinterpret_cast<const uint8_t*>(bytes.data()) + at + 4);
    ends.push_back(at);
  }
  ASSERT_EQ(ends.size(), 3u);

  // The trace written again, a piece at a time, into a directory the follower watches.
  const std::string live_dir = dir / "live";
  ProvenanceFollower follower({live_dir});
  auto none = [](const std::string&) { return uint64_t{0}; };
  EXPECT_TRUE(follower.Poll(none).events.empty()) << "no directory yet";
  mkdir(live_dir.c_str(), 0755);
  const std::string live = live_dir + "/known.fh5";
  std::vector<nlohmann::json> got;
  std::vector<std::pair<std::string, uint64_t>> positions;
  size_t written = 0;
  auto grow_to = [&](size_t size) {
    std::ofstream(live, std::ios::binary | std::ios::app) << bytes.substr(written, size - written);
    written = size;
    auto pass = follower.Poll(none);
    EXPECT_TRUE(pass.problems.empty()) << pass.problems.front();
    for (const auto& e : WithoutIds(pass.events)) got.push_back(e);
    positions.insert(positions.end(), pass.positions.begin(), pass.positions.end());
    return pass.events.size();
  };
  EXPECT_EQ(grow_to(10), 0u);               // half a header
  EXPECT_EQ(grow_to(ends[0]), 0u);          // the process record
  EXPECT_EQ(follower.files(), 1u);
  EXPECT_EQ(grow_to(ends[1] - 1), 0u);      // all of the calls' frame but its last byte
  EXPECT_EQ(grow_to(ends[1]), 8u);          // the calls' frame whole: every event, once
  EXPECT_EQ(follower.ended(), 0u);
  EXPECT_EQ(grow_to(bytes.size()), 0u);     // the end record
  EXPECT_EQ(follower.ended(), 1u);
  EXPECT_EQ(got, expected);
  ASSERT_FALSE(positions.empty());
  EXPECT_EQ(positions.back(), std::make_pair("h5prov:" + live, uint64_t{bytes.size()}));

  // A follower started again with the stored position gives nothing again; one with an older
  // position (the calls' frame not stored) gives exactly the calls' events.
  ProvenanceFollower again({live_dir});
  EXPECT_TRUE(again.Poll([&](const std::string&) { return uint64_t{bytes.size()}; }).events.empty());
  ProvenanceFollower older({live_dir});
  EXPECT_EQ(WithoutIds(older.Poll([&](const std::string&) { return uint64_t{ends[0]}; }).events), expected);
}

// Writes a dataset, then waits (making HDF5 calls, so that the tracer hands its records over)
// until the gate file exists, then writes a second dataset.
constexpr const char* kGatedScript = R"(
import os, sys, time, h5py, numpy
path, gate = sys.argv[1], sys.argv[2]
f = h5py.File(path, "w")
f.create_dataset("first", data=numpy.arange(10, dtype="i4"))
for _ in range(1200):
    if os.path.exists(gate):
        break
    f.flush()
    time.sleep(0.05)
f.create_dataset("second", data=numpy.arange(5, dtype="i4"))
f.close()
)";

class H5FollowCli : public ::testing::Test {
 protected:
  std::unique_ptr<fathom::testing::Subprocess> StartFollower() {
    auto p = std::make_unique<fathom::testing::Subprocess>(std::vector<std::string>{
        fathom::testing::FathomBinary(), "h5", "events", "--follow", runs(), "--store", store(), "--interval",
        "100ms"});
    EXPECT_TRUE(p->WaitForStderr("following the HDF5 traces", 20s)) << p->stderr_text();
    return p;
  }
  // The stored events, as `fathom events` prints them.
  std::vector<nlohmann::json> Stored() const {
    auto r = fathom::testing::Run({fathom::testing::FathomBinary(), "events", "--store", store(), "--format", "json"});
    std::vector<nlohmann::json> out;
    for (const std::string& line : fathom::testing::Lines(r.out)) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  // Waits until the store holds an event of `what` about `object`.
  bool WaitForStored(const std::string& what, const std::string& object) const {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      for (const auto& e : Stored()) {
        if (e["h5"]["event"] == what && e["h5"]["object"] == object) return true;
      }
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  std::string runs() const { return dir_ / "runs"; }
  std::string store() const { return dir_ / "events.db"; }
  fathom::testing::TempDir dir_;
};

TEST_F(H5FollowCli, ARunningProgramsEventsAreStoredWhileItRunsAndOnceAcrossAKill) {
  auto follower = StartFollower();
  const std::string gate = dir_ / "gate";
  fathom::testing::Subprocess program({fathom::testing::FathomBinary(), "h5", "run", "--job", "live", "--out", runs(),
                                       "--", "/usr/bin/python3", "-c", kGatedScript, dir_ / "live.h5", gate});
  // The first dataset's write is stored while the program waits at its gate: followed live.
  ASSERT_TRUE(WaitForStored("DATASET_WRITE", "/first")) << follower->stderr_text();
  EXPECT_EQ(kill(program.pid(), 0), 0) << "the program is still running, at its gate";
  // Killed without warning, then started again: it goes on from the stored position.
  follower->Signal(SIGKILL);
  follower->Wait();
  follower = StartFollower();
  std::ofstream(gate) << "go";
  EXPECT_EQ(program.Wait(), 0) << program.stderr_text();
  ASSERT_TRUE(WaitForStored("DATASET_WRITE", "/second")) << follower->stderr_text();
  follower->Signal(SIGTERM);
  EXPECT_EQ(follower->Wait(), 0) << follower->stderr_text();

  // Exactly the events the finished trace gives, each once, in order.
  auto batch = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "events", runs()});
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  std::vector<nlohmann::json> expected;
  for (const std::string& line : fathom::testing::Lines(batch.out)) expected.push_back(nlohmann::json::parse(line));
  std::vector<nlohmann::json> stored = Stored();
  ASSERT_EQ(stored.size(), expected.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["id"], i + 1);
    stored[i]["id"] = 0;
    EXPECT_EQ(stored[i], expected[i]) << i;
  }
  // The same traces given again, to --follow or to a plain --store, add nothing.
  auto again = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "events", runs(), "--store", store()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("no new event"), std::string::npos) << again.err;
  EXPECT_EQ(Stored().size(), expected.size());
}

}  // namespace
}  // namespace fathom::h5prov
