// `fathom io servers` and `fathom io anomalies` end to end on the Lustre emulator: four writers
// each put the same volume on their own OST at the same pace while the sampler reads lctl's
// statistics every 250 ms; with one OST made slow (sim_delay_ms) the detector names it and
// only it, with every OST equal it stays quiet. The samples are checked against what was
// written.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "fathom/io_servers.h"
#include "lustre_sim/fuse/sim_fixture.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;

class IoServersSimTest : public SimMountTest {
 protected:
  void SetUp() override {
    SimMountTest::SetUp();
    RunResult r = Mount(1, {"--jobid-var", "procname_uid"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (int ost = 0; ost < 4; ++ost) {
      ASSERT_EQ(Lfs({"setstripe", "-c", "1", "-i", std::to_string(ost), File(ost)}).exit_code, 0);
    }
  }
  std::string File(int ost) const { return mount() + "/f" + std::to_string(ost); }
  std::string Samples() const { return state() + "/../samples.db"; }

  // Samples while four threads each write 2 MiB in 64 KiB pieces, one every 30 ms, to the
  // file on their OST; returns `fathom io anomalies --json` (with `extra` options).
  nlohmann::json Run(const std::vector<std::string>& extra = {}) {
    Subprocess sampler({FATHOM_BINARY, "io", "servers", "--interval", "250ms", "--lctl",
                        LctlBinary(), "--diskstats", "", "--mountstats", "", "--out", Samples()});
    if (!sampler.WaitForStderr("baseline read", 60s)) {
      ADD_FAILURE() << "the sampler never read its baseline: " << sampler.stderr_text();
      return nlohmann::json::object({{"error", "no baseline"}});
    }
    std::vector<std::thread> writers;
    for (int ost = 0; ost < 4; ++ost) {
      writers.emplace_back([this, ost] {
        const int fd = open(File(ost).c_str(), O_WRONLY | O_CLOEXEC);
        ASSERT_GE(fd, 0);
        const std::string piece(64 * 1024, 'x');
        for (int i = 0; i < 32; ++i) {
          ASSERT_EQ(pwrite(fd, piece.data(), piece.size(), static_cast<off_t>(i) * 65536), 65536);
          std::this_thread::sleep_for(30ms);
        }
        close(fd);
      });
    }
    for (auto& w : writers) w.join();
    // Until the samples hold every byte written, in the OSTs' totals and in their jobs' (one
    // pass reads the two at different moments: the last write may be in one and not yet in
    // the other).
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while ((WrittenPerOst() != Expected() || WrittenPerOst(true) != Expected()) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(100ms);
    }
    sampler.Signal(SIGTERM);
    EXPECT_EQ(sampler.Wait(), 0) << sampler.stderr_text();
    std::vector<std::string> anomalies = {FATHOM_BINARY, "io",      "anomalies",
                                          "--samples",   Samples(), "--json"};
    anomalies.insert(anomalies.end(), extra.begin(), extra.end());
    RunResult r = testing::Run(anomalies);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  // What each OST was given: 2 MiB.
  static std::map<std::string, uint64_t> Expected() {
    return {{"testfs-OST0000", 2 << 20},
            {"testfs-OST0001", 2 << 20},
            {"testfs-OST0002", 2 << 20},
            {"testfs-OST0003", 2 << 20}};
  }

  // Bytes written per OST in the samples' totals, or summed over its jobs' samples.
  std::map<std::string, uint64_t> WrittenPerOst(bool by_job = false) {
    auto store = io::SampleStore::Open(Samples(), false);
    EXPECT_TRUE(store.ok()) << store.status().message();
    std::map<std::string, uint64_t> out;
    if (!store.ok()) return out;
    auto samples = (*store)->Read(0, INT64_MAX);
    EXPECT_TRUE(samples.ok()) << samples.status().message();
    if (!samples.ok()) return out;
    for (const auto& s : *samples) {
      if (s.job.empty() != by_job && s.counter == "write_bytes") out[s.target] += s.sum;
    }
    return out;
  }
};

TEST_F(IoServersSimTest, TheThrottledOstIsTheOneFlaggedAndAlerted) {
  ASSERT_EQ(Lctl({"set_param", "obdfilter.testfs-OST0002.sim_delay_ms=120"}).exit_code, 0);
  const std::string config = state() + "/../policies.yaml", log = state() + "/../alerts.log";
  std::ofstream(config) << "alert_sinks:\n  log: " << log << "\n";
  const nlohmann::json found = Run({"--alerts", config});
  ASSERT_FALSE(found.empty()) << "the slow OST was not found";
  std::set<std::string> jobs;
  for (const auto& a : found) {
    EXPECT_EQ(a["target"], "testfs-OST0002") << a.dump();
    EXPECT_EQ(a["bytes"], 2 << 20);
    EXPECT_EQ(a["peers"], 4);
    EXPECT_EQ(a["duration"], "1h");
    EXPECT_GT(a["usecs_per_mib"].get<double>(), 16 * 120000.0);
    jobs.insert(a["job"].get<std::string>());
  }
  EXPECT_EQ(jobs.count(""), 1u) << "flagged across jobs too";
  // Each anomaly is an alert in the policies' alert log.
  std::ifstream in(log);
  std::vector<std::string> alerts;
  for (std::string line; std::getline(in, line);) alerts.push_back(line);
  ASSERT_EQ(alerts.size(), found.size());
  EXPECT_NE(alerts[0].find(" raised io-anomaly: testfs-OST0002 (testfs-OST0002: "),
            std::string::npos)
      << alerts[0];
  EXPECT_EQ(WrittenPerOst(), Expected());
}

TEST_F(IoServersSimTest, EqualOstsAreQuiet) {
  const nlohmann::json found = Run();
  EXPECT_TRUE(found.empty()) << found.dump();
  EXPECT_EQ(WrittenPerOst(), Expected());
}

}  // namespace
}  // namespace fathom::testing
