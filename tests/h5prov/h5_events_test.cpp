// `fathom h5 events`: the HDF5 calls of a real run (known_ops under the real `fathom h5 run`) as
// fathom events, printed and appended to a real event store, read back with `fathom events`.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "h5_run.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::h5prov::testing {
namespace {

std::vector<nlohmann::json> JsonLines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  for (const std::string& line : fathom::testing::Lines(text)) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

struct Expected {
  std::string kind, event, object, name;
  int64_t bytes;  // -1: none
};

TEST(H5Events, KnownOperationsGiveExactlyTheirEventsPrintedAndInAStore) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "known.h5";
  auto run = RunTraced(dir / "traces", {Workload("known_ops"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& t = run.traces[0];

  auto printed = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "events", dir / "traces"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  const std::vector<nlohmann::json> events = JsonLines(printed.out);
  // The program's calls that create, write or read something; opens and closes are not events.
  const std::vector<Expected> expected = {
      {"CREATE", "FILE_CREATE", "/", "", -1},
      {"MODIFY", "GROUP_CREATE", "/grp", "grp", -1},
      {"MODIFY", "DATASET_CREATE", "/grp/data", "data", -1},
      {"MODIFY", "DATASET_WRITE", "/grp/data", "", 2 * 3 * 4},
      {"MODIFY", "ATTRIBUTE_CREATE", "/grp/data", "scale", -1},
      {"MODIFY", "ATTRIBUTE_WRITE", "/grp/data", "scale", 4 * 8},
      {"ACCESS", "DATASET_READ", "/grp/data", "", 6 * 8 * 4},
      {"ACCESS", "ATTRIBUTE_READ", "/grp/data", "scale", 4 * 8},
  };
  ASSERT_EQ(events.size(), expected.size()) << printed.out;
  int64_t previous_ts = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const nlohmann::json& e = events[i];
    const nlohmann::json& h5 = e["h5"];
    EXPECT_EQ(e["events"], nlohmann::json::array({expected[i].kind})) << i;
    EXPECT_EQ(e["path"], file) << i;
    EXPECT_EQ(e["root"], dir.path()) << i;
    EXPECT_EQ(e["source"], "h5prov") << i;
    EXPECT_EQ(h5["event"], expected[i].event) << i;
    EXPECT_EQ(h5["object"], expected[i].object) << i;
    EXPECT_EQ(h5.value("name", ""), expected[i].name) << i;
    EXPECT_EQ(h5.value("bytes", int64_t{-1}), expected[i].bytes) << i;
    EXPECT_EQ(h5["job"], "job") << i;
    EXPECT_EQ(h5["pid"], t.process.pid) << i;
    EXPECT_EQ(h5["uid"], t.process.uid) << i;
    EXPECT_EQ(h5["rank"], -1) << i;
    // Wall-clock times of the calls, in order, during the run.
    const int64_t ts = e["ts"].get<int64_t>();
    EXPECT_GE(ts, previous_ts) << i;
    EXPECT_GE(static_cast<uint64_t>(ts), t.process.anchor_realtime_ns) << i;
    previous_ts = ts;
  }

  // Into a store, and back out of it with ids: the same events.
  const std::string store = dir / "events.db";
  auto appended = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "events", dir / "traces", "--store", store});
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  EXPECT_NE(appended.err.find("8 events appended to " + store + " (ids 1..8)"), std::string::npos) << appended.err;
  auto replayed = fathom::testing::Run({fathom::testing::FathomBinary(), "events", "--store", store, "--format", "json"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const std::vector<nlohmann::json> stored = JsonLines(replayed.out);
  ASSERT_EQ(stored.size(), events.size()) << replayed.out;
  for (size_t i = 0; i < stored.size(); ++i) {
    nlohmann::json without_id = stored[i];
    EXPECT_EQ(without_id["id"], i + 1);
    without_id["id"] = 0;
    EXPECT_EQ(without_id, events[i]) << i;
  }
}

TEST(H5Events, ADirectoryWithoutTracesIsAnErrorSayingHowToMakeThem) {
  fathom::testing::TempDir dir;
  auto r = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "events", dir.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no HDF5 traces (*.fh5) under " + dir.path() + "; `fathom h5 run --out"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace fathom::h5prov::testing
