// `fathom watch --source lustre:...` on a real FUSE mount of fathom-lustre-sim, through the
// emulator's liblustreapi: FSMonitor's Table II from the CLI, and the reader killed with
// SIGKILL at random moments under a workload and restarted, again and again: the store must
// hold every record's events exactly once, and the changelog must never have been cleared
// past what the store holds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "fathom/store.h"
#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

constexpr const char* kDevice = "simfs-MDT0000";

std::vector<std::string> WatchArgs(const MountedFs& fs, const std::string& user,
                                   const std::string& db, const std::string& format) {
  return {FathomBinary(), "watch", "--source", std::string("lustre:") + kDevice, "--mount",
          fs.mount(), "--changelog-user", user, "--lustre-library", LibraryPath(), "--store", db,
          "--sync", "normal", "--format", format};
}

TEST(LustreWatchCommand, EvaluateOutputScriptPrintsTableII) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  Subprocess watch(WatchArgs(fs, user, fs.dir() / "events.db", "inotify"));
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
  RunEvaluateOutputScript(fs.mount());
  EXPECT_EQ(watch.ReadLines(10), ExpectedTableII(fs.mount())) << watch.stderr_text();
  watch.Signal(SIGTERM);
  EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
}

// Kills and reaps a forked workload that is still running when the test ends early, so the
// mount can be unmounted.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ~ChildGuard() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  // Waits for the child; true if it exited 0.
  bool Succeeded() {
    int status = 0;
    const bool reaped = waitpid(pid_, &status, 0) == pid_;
    pid_ = -1;
    return reaped && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

 private:
  pid_t pid_;
};

// What the store holds: events per changelog record, and the position stored with them.
struct Stored {
  std::map<uint64_t, int> events_per_record;
  std::map<uint64_t, std::string> type_of_record;
  uint64_t position = 0;
};

Stored ReadStore(const std::string& db) {
  Stored out;
  StoreOptions options;
  options.path = db;
  options.read_only = true;
  auto store = EventStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return out;
  Status s = (*store)->Replay({}, [&](const Event& e) {
    auto attrs = nlohmann::json::parse(e.attrs);
    const auto recno = attrs["recno"].get<uint64_t>();
    ++out.events_per_record[recno];
    out.type_of_record[recno] = attrs["type"].get<std::string>();
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.message();
  auto position = (*store)->Position(std::string("lustre:") + kDevice);
  EXPECT_TRUE(position.ok()) << position.status().message();
  if (position.ok()) out.position = *position;
  return out;
}

TEST(LustreWatchCommand, KilledAtRandomAndRestartedStoresEveryRecordOnceAndNeverClearsPastIt) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string fathom_user = RegisterUser(fs.state_dir());
  const std::string other_user = RegisterUser(fs.state_dir());  // never clears: keeps every record
  const std::string db = fs.dir() / "events.db";
  MakeDirs(fs.mount() + "/work");
  ChildGuard workload(StartCreateDeleteCycles(fs.mount() + "/work", 0, 6000));

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(100, 700);
  constexpr int kKills = 12;
  for (int round = 0; round < kKills; ++round) {
    Subprocess watch(WatchArgs(fs, fathom_user, db, "json"));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    watch.Signal(SIGKILL);
    watch.Wait();
    const Stored stored = ReadStore(db);
    EXPECT_LE(ClearedBy(fs.state_dir(), fathom_user), stored.position)
        << "the changelog was cleared past the stored position after kill " << round;
  }
  ASSERT_TRUE(workload.Succeeded()) << "the workload failed on the mount";

  // A last run reads what is left, then stops.
  Subprocess last(WatchArgs(fs, fathom_user, db, "json"));
  auto state = lustre_sim::SimState::Open(fs.state_dir());
  ASSERT_TRUE(state.ok()) << state.status().message();
  auto final_index = (*state)->LastIndex(0);
  ASSERT_TRUE(final_index.ok()) << final_index.status().message();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (ReadStore(db).position < *final_index && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(200ms);
  }
  last.Signal(SIGTERM);
  EXPECT_EQ(last.Wait(), 0) << last.stderr_text();

  const Stored stored = ReadStore(db);
  EXPECT_EQ(stored.position, *final_index);
  EXPECT_LE(ClearedBy(fs.state_dir(), fathom_user), stored.position);
  // Every record the other user still holds: CREAT/MTIME/CLOSE/UNLNK give one event each,
  // MKDIR one; each appears exactly once in the store.
  std::vector<lustre::ChangelogRecord> records;
  ASSERT_TRUE((*state)->Read(0, 1, 1'000'000, records).ok());
  ASSERT_EQ(records.size(), *final_index) << "the other user's records were cleared";
  size_t creates = 0, unlinks = 0;
  for (const auto& r : records) {
    auto it = stored.events_per_record.find(r.index);
    ASSERT_NE(it, stored.events_per_record.end())
        << "record " << r.index << " (" << *lustre::RecordTypeName(r.type) << ") is not stored";
    EXPECT_EQ(it->second, 1) << "record " << r.index << " stored " << it->second << " times";
    creates += r.type == CL_CREATE;
    unlinks += r.type == CL_UNLINK;
  }
  EXPECT_EQ(creates, 6000u);
  EXPECT_EQ(unlinks, 6000u);
  EXPECT_EQ(stored.events_per_record.size(), records.size());
}

}  // namespace
}  // namespace fathom::testing
