// `fathom watch --store` killed with SIGKILL at random moments under a continuous file
// workload: the store must always open sound, ids must stay unique and increasing across
// restarts, and every event printed before a kill must be in the store (printing follows the
// commit). A consumer restarting with `fathom events --since LAST` gets exactly the rest.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::Subprocess;

// Creates, writes, renames and deletes files in `dir` from a child process until destroyed.
class Workload {
 public:
  explicit Workload(const std::string& dir) {
    pid_ = fork();
    if (pid_ == 0) Run(dir);
  }
  ~Workload() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;
  bool started() const { return pid_ > 0; }

 private:
  [[noreturn]] static void Run(const std::string& dir) {
    for (uint64_t i = 0;; ++i) {
      const std::string a = dir + "/w" + std::to_string(i % 64);
      const std::string b = a + ".renamed";
      std::ofstream(a) << i;
      std::rename(a.c_str(), b.c_str());
      std::remove(b.c_str());
      if (i % 16 == 0) usleep(1000);  // about 40k events/s: busy, yet leaves the CPU to fathom
    }
  }
  pid_t pid_ = -1;
};

struct Printed {
  uint64_t id = 0;
  std::string path;
  std::string line;
};

// The complete JSON lines `p` printed (a line cut short by the kill is not complete).
std::vector<Printed> ReadPrinted(Subprocess& p, std::chrono::milliseconds window) {
  std::vector<Printed> printed;
  const auto deadline = std::chrono::steady_clock::now() + window;
  while (std::chrono::steady_clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    auto line = p.ReadLine(std::max(left, 1ms));
    if (!line) break;
    auto j = nlohmann::json::parse(*line);
    printed.push_back({j["id"].get<uint64_t>(), j["path"].get<std::string>(), *line});
  }
  return printed;
}

std::vector<std::string> WatchArgs(const std::string& dir, const std::string& db) {
  return {FathomBinary(), "watch", "-r", dir, "--store", db, "--format", "json"};
}

std::map<uint64_t, std::string> StoredPaths(const std::string& db) {
  std::map<uint64_t, std::string> paths;
  auto store = EventStore::Open(testing::ReaderOptions(db));
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return paths;
  for (const auto& e : testing::ReplayAll(*store.value())) paths[e.id] = e.path;
  return paths;
}

TEST(StoreCrash, WatchKilledAtRandomMomentsLeavesASoundStoreHoldingEveryPrintedEvent) {
  testing::TempDir dir;
  testing::TempDir state;
  const std::string db = state / "events.db";
  Workload workload(dir.path());
  ASSERT_TRUE(workload.started());
  std::mt19937 rng(20241121);
  uint64_t previous_max = 0;
  size_t rounds_with_output = 0;
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Subprocess watch(WatchArgs(dir.path(), db));
    ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
    const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 500)(rng));
    auto printed = ReadPrinted(watch, delay);
    watch.Signal(SIGKILL);
    for (auto& rest : watch.ReadAllLines(2s)) {
      auto j = nlohmann::json::parse(rest);
      printed.push_back({j["id"].get<uint64_t>(), j["path"].get<std::string>(), rest});
    }
    ASSERT_EQ(watch.Wait(), 128 + SIGKILL);
    if (!printed.empty()) ++rounds_with_output;

    ASSERT_EQ(testing::IntegrityCheck(db), std::vector<std::string>{"ok"});
    const auto stored = StoredPaths(db);
    uint64_t expect = stored.empty() ? 0 : stored.begin()->first;
    for (const auto& [id, path] : stored) {
      ASSERT_EQ(id, expect) << "stored ids are contiguous and unique";
      ++expect;
    }
    uint64_t last_printed = previous_max;
    for (const auto& p : printed) {
      ASSERT_GT(p.id, last_printed)
          << "printed ids increase, and continue above the previous run's";
      last_printed = p.id;
      auto it = stored.find(p.id);
      ASSERT_NE(it, stored.end()) << "printed but not stored: " << p.line;
      EXPECT_EQ(it->second, p.path);
    }
    const uint64_t stored_max = stored.empty() ? 0 : stored.rbegin()->first;
    EXPECT_GE(stored_max, previous_max);
    previous_max = stored_max;
  }
  EXPECT_GE(rounds_with_output, 6u) << "the workload produced events in most rounds";
}

TEST(StoreCrash, ConsumerRestartingWithEventsSinceLastGetsExactlyTheNewerEvents) {
  testing::TempDir dir;
  testing::TempDir state;
  const std::string db = state / "events.db";
  std::map<uint64_t, std::string> printed_lines;
  uint64_t consumer_last = 0;
  {
    Workload workload(dir.path());
    ASSERT_TRUE(workload.started());
    for (int round = 0; round < 3; ++round) {
      Subprocess watch(WatchArgs(dir.path(), db));
      ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
      auto printed = ReadPrinted(watch, 300ms);
      watch.Signal(SIGKILL);
      ASSERT_EQ(watch.Wait(), 128 + SIGKILL);
      for (const auto& p : printed) printed_lines[p.id] = p.line;
      // The consumer processed the first half of what this round printed.
      if (round == 1 && !printed.empty()) consumer_last = printed[printed.size() / 2].id;
    }
  }
  ASSERT_GT(consumer_last, 0u) << "the second run printed nothing";
  auto store = EventStore::Open(testing::ReaderOptions(db));
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto last = store.value()->LastId();
  ASSERT_TRUE(last.ok());

  auto r = testing::Run({FathomBinary(), "events", "--store", db, "--since",
                         std::to_string(consumer_last), "--format", "json"},
                        60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<uint64_t> ids;
  size_t start = 0, compared = 0;
  for (size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = r.out.substr(start, nl - start);
    uint64_t id = nlohmann::json::parse(line)["id"].get<uint64_t>();
    ids.push_back(id);
    auto it = printed_lines.find(id);
    if (it != printed_lines.end()) {
      EXPECT_EQ(line, it->second) << "replayed exactly as first printed";
      ++compared;
    }
  }
  EXPECT_EQ(ids, testing::IdRange(consumer_last + 1, last.value()));
  EXPECT_GT(compared, 0u);
}

}  // namespace
}  // namespace fathom
