// fathomd with real roles: an aggregator, a collector on a temp tree and a subscriber writing a
// file, run from one YAML file; a killed role is restarted and nothing is lost or repeated.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;

const std::string kFathomd = FATHOM_BUILD_DIR "/fathomd";

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

struct Line {
  uint64_t id;
  std::string path;
  std::string kinds;
};

std::vector<Line> ReadOutput(const std::string& file) {
  std::vector<Line> out;
  std::ifstream in(file);
  std::string text;
  while (std::getline(in, text)) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) continue;  // a line being written
    out.push_back({j.value("id", uint64_t{0}), j.value("path", std::string()), j["events"].dump()});
  }
  return out;
}

// Waits until every path in `paths` has a CREATE line in `file`.
bool WaitForCreates(const std::string& file, const std::vector<std::string>& paths, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::set<std::string> created;
    for (const auto& l : ReadOutput(file)) {
      if (l.kinds.find("CREATE") != std::string::npos) created.insert(l.path);
    }
    if (std::all_of(paths.begin(), paths.end(), [&](const auto& p) { return created.count(p) > 0; })) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

std::vector<std::string> CreateFiles(const std::string& dir, const std::string& stem, int n) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    paths.push_back(dir + "/" + stem + std::to_string(i));
    std::ofstream(paths.back()) << i;
  }
  return paths;
}

// Running (not a zombie waiting for a reaper).
bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

pid_t PidOf(const std::string& log, const std::string& role) {
  const std::string needle = role + " started (pid ";
  const auto at = log.rfind(needle);
  return at == std::string::npos ? -1 : std::stoi(log.substr(at + needle.size()));
}

class Fathomd : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directory(watched_);
    for (const char* name : {"server", "client"}) {
      auto r = testing::Run({FathomBinary(), "keygen", "-o", dir_ / name});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    std::ofstream(dir_ / "clients.yaml") << "clients:\n  - name: t\n    key: client.pub\n    roles: [collect, subscribe]\n";
  }
  void WriteConfig(const std::string& collect_extra) {
    const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreePort());
    std::ofstream(dir_ / "fathomd.yaml")
        << "aggregate:\n  listen: " << endpoint
        << "\n  store: sqlite:events.db\n  key: server.key\n  clients: clients.yaml\n  sync: normal\n"
        << "collect:\n  - paths: [" << watched_ << "]\n    recursive: true\n    to: " << endpoint
        << "\n    name: home\n    key: client.key\n    server-key: server.pub\n" << collect_extra
        << "subscribe:\n  - from: " << endpoint
        << "\n    since: 0\n    format: json\n    key: client.key\n    server-key: server.pub\n"
        << "    output: out.jsonl\n";
  }
  TempDir dir_;
  std::string watched_ = dir_ / "watched";
};

TEST_F(Fathomd, RunsTheRolesAndRestartsAKilledAggregatorWithoutLossOrRepeats) {
  WriteConfig("");
  Subprocess daemon({kFathomd, "--config", dir_ / "fathomd.yaml", "--fathom", FathomBinary()});
  ASSERT_TRUE(daemon.WaitForStderr("subscribe[0] started", 20s)) << daemon.stderr_text();
  ASSERT_TRUE(daemon.WaitForStderr("watches established", 20s)) << daemon.stderr_text();
  auto first = CreateFiles(watched_, "a", 20);
  ASSERT_TRUE(WaitForCreates(dir_ / "out.jsonl", first, 30s)) << daemon.stderr_text();

  const pid_t aggregator = PidOf(daemon.stderr_text(), "aggregate");
  ASSERT_GT(aggregator, 0) << daemon.stderr_text();
  ASSERT_EQ(kill(aggregator, SIGKILL), 0);
  ASSERT_TRUE(daemon.WaitForStderr("aggregate was killed by signal", 10s)) << daemon.stderr_text();
  auto second = CreateFiles(watched_, "b", 20);  // while the aggregator is down or restarting
  ASSERT_TRUE(WaitForCreates(dir_ / "out.jsonl", second, 60s)) << daemon.stderr_text();
  ASSERT_TRUE(daemon.WaitForStderr("aggregate started", 10s)) << daemon.stderr_text();
  EXPECT_NE(PidOf(daemon.stderr_text(), "aggregate"), aggregator);

  const auto lines = ReadOutput(dir_ / "out.jsonl");
  for (size_t i = 1; i < lines.size(); ++i) {
    ASSERT_LT(lines[i - 1].id, lines[i].id) << "ids repeat or go back at line " << i + 1;
  }
  std::set<std::string> kinds_paths;
  for (const auto& l : lines) {
    EXPECT_TRUE(kinds_paths.insert(l.kinds + l.path).second) << "repeated " << l.kinds << " " << l.path;
  }

  daemon.Signal(SIGTERM);
  EXPECT_EQ(daemon.Wait(), 0) << daemon.stderr_text();
  for (const char* role : {"aggregate", "collect[0]", "subscribe[0]"}) {
    const pid_t pid = PidOf(daemon.stderr_text(), role);
    EXPECT_FALSE(Alive(pid)) << role << " (pid " << pid << ") outlived fathomd";
  }
}

TEST_F(Fathomd, RolesDoNotOutliveAKilledFathomd) {
  WriteConfig("");
  Subprocess daemon({kFathomd, "--config", dir_ / "fathomd.yaml", "--fathom", FathomBinary()});
  ASSERT_TRUE(daemon.WaitForStderr("subscribe[0] started", 20s)) << daemon.stderr_text();
  std::vector<pid_t> roles;
  for (const char* role : {"aggregate", "collect[0]", "subscribe[0]"}) roles.push_back(PidOf(daemon.stderr_text(), role));
  for (pid_t pid : roles) ASSERT_TRUE(Alive(pid)) << pid;
  daemon.Signal(SIGKILL);
  daemon.Wait();
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline &&
         std::any_of(roles.begin(), roles.end(), [](pid_t pid) { return Alive(pid); })) {
    std::this_thread::sleep_for(50ms);
  }
  for (pid_t pid : roles) EXPECT_FALSE(Alive(pid)) << "role pid " << pid << " outlived a killed fathomd";
}

TEST_F(Fathomd, ARoleThatRefusesItsOptionsStopsEverythingNamingIt) {
  WriteConfig("  - source: bogus:/nowhere\n    to: tcp://127.0.0.1:1\n    insecure: true\n");
  auto r = testing::Run({kFathomd, "--config", dir_ / "fathomd.yaml", "--fathom", FathomBinary()}, 30s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("collect[1] (configured at line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad --source 'bogus:/nowhere'"), std::string::npos) << r.err;
}

TEST_F(Fathomd, SighupReachesTheAggregatorWhichReloadsItsClientsAndEverythingRunsOn) {
  WriteConfig("");
  Subprocess daemon({kFathomd, "--config", dir_ / "fathomd.yaml", "--fathom", FathomBinary()});
  ASSERT_TRUE(daemon.WaitForStderr("aggregating on", 20s)) << daemon.stderr_text();
  const pid_t aggregator = PidOf(daemon.stderr_text(), "aggregate");
  daemon.Signal(SIGHUP);
  ASSERT_TRUE(daemon.WaitForStderr("client list replaced: 1 clients admitted", 20s)) << daemon.stderr_text();
  EXPECT_NE(daemon.stderr_text().find("SIGHUP: passed on to aggregate (pid " + std::to_string(aggregator) + ")"),
            std::string::npos)
      << daemon.stderr_text();
  EXPECT_TRUE(Alive(aggregator));
  daemon.Signal(SIGTERM);
  EXPECT_EQ(daemon.Wait(), 0) << daemon.stderr_text();
  EXPECT_EQ(daemon.stderr_text().find("aggregate exited"), std::string::npos) << daemon.stderr_text();
}

TEST_F(Fathomd, CheckNamesEveryMissingOrUnusableFileWithItsLineAndRole) {
  WriteConfig("");
  auto good = testing::Run({kFathomd, "--check", "--config", dir_ / "fathomd.yaml"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("aggregate: fathom aggregate"), std::string::npos) << good.out;

  const std::string config = dir_ / "bad.yaml";
  std::ofstream(config) << "aggregate:\n"                          // 1
                           "  listen: tcp://127.0.0.1:7400\n"      // 2
                           "  store: sqlite:nowhere/events.db\n"   // 3
                           "  key: missing.key\n"                  // 4
                           "  clients: missing-clients.yaml\n"     // 5
                           "collect:\n"                            // 6
                           "  - paths: [/nonexistent/tree]\n"      // 7
                           "    to: tcp://127.0.0.1:7400\n"        // 8
                           "    key: server.pub\n"                 // 9
                           "    server-key: missing.pub\n"         // 10
                           "subscribe:\n"                          // 11
                           "  - from: tcp://127.0.0.1:7400\n"      // 12
                           "    key: client.key\n"                 // 13
                           "    server-key: server.pub\n"          // 14
                           "    output: nowhere/out.jsonl\n";      // 15
  auto bad = testing::Run({kFathomd, "--check", "--config", config});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.out, "");
  const std::string nowhere = dir_ / "nowhere";
  for (const std::string& expected :
       {config + ":3: aggregate: store sqlite:nowhere/events.db: its directory " + nowhere + " does not exist",
        config + ":4: aggregate: key missing.key: ", config + ":5: aggregate: clients missing-clients.yaml: ",
        config + ":7: collect[0]: paths /nonexistent/tree: does not exist",
        config + ":9: collect[0]: key server.pub: holds only a public key",
        config + ":10: collect[0]: server-key missing.pub: ",
        config + ":15: subscribe[0]: output nowhere/out.jsonl: its directory " + nowhere + " does not exist"}) {
    EXPECT_NE(bad.err.find("fathomd: " + expected), std::string::npos) << expected << "\n" << bad.err;
  }
  size_t lines = 0;
  for (size_t at = bad.err.find("fathomd: "); at != std::string::npos; at = bad.err.find("fathomd: ", at + 1)) ++lines;
  EXPECT_EQ(lines, 7u) << bad.err;
}

// The shipped examples, copied with the keys they name: what --check reports is only the
// site's own paths (the watched tree, the Lustre mount, /var directories), never a key file.
TEST(FathomdExamples, ShippedConfigurationsNeedOnlyTheirKeysAndTheSitesPaths) {
  TempDir dir;
  for (const char* name : {"laptop.yaml", "site-4mdt.yaml", "clients-laptop.yaml", "clients-site.yaml"}) {
    std::filesystem::copy_file(std::string(FATHOM_SOURCE_DIR "/examples/fathomd/") + name, dir / name);
  }
  for (const char* key : {"server", "laptop", "aggregator", "collector", "archiver"}) {
    ASSERT_EQ(testing::Run({FathomBinary(), "keygen", "-o", dir / key}).exit_code, 0);
  }
  for (const char* example : {"laptop.yaml", "site-4mdt.yaml"}) {
    auto r = testing::Run({kFathomd, "--check", "--config", dir / example});
    std::istringstream err(r.err);
    std::string line;
    while (std::getline(err, line)) {
      const bool site_path = line.find(": paths /home/me: ") != std::string::npos ||
                             line.find(": mount /lustre/scratch: ") != std::string::npos ||
                             line.find(": store sqlite:/var/lib/fathom/") != std::string::npos ||
                             line.find(": output /var/log/fathom/") != std::string::npos;
      EXPECT_TRUE(site_path) << example << ": " << line;
    }
    if (r.exit_code == 0) {
      EXPECT_NE(r.out.find("aggregate: fathom aggregate"), std::string::npos) << r.out;
    }
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.exit_code;
  }
}

}  // namespace
}  // namespace fathom::testing
