// `fathom watch --source lustre:...` on a real FUSE mount of fathom-lustre-sim, through the
// emulator's liblustreapi: FSMonitor's Table II from the CLI, and the reader killed with
// SIGKILL at random moments under a workload and restarted, again and again: the store must
// hold every record's events exactly once, and the changelog must never have been cleared
// past what the store holds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

constexpr const char* kDevice = "simfs-MDT0000";

// `format` "quiet": store only, print nothing (a run whose output nobody reads must not
// block on a full pipe).
std::vector<std::string> WatchArgs(const MountedFs& fs, const std::string& user,
                                   const std::string& db, const std::string& format,
                                   const std::string& device = kDevice) {
  std::vector<std::string> args = {FathomBinary(),      "watch",     "--source",
                                   "lustre:" + device,  "--mount",   fs.mount(),
                                   "--changelog-user",  user,        "--lustre-library",
                                   LibraryPath(),       "--store",   db,
                                   "--sync",            "normal"};
  if (format == "quiet") {
    args.push_back("-q");
  } else {
    args.insert(args.end(), {"--format", format});
  }
  return args;
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

Stored ReadStore(const std::string& db, std::vector<std::string>* lines = nullptr,
                 const std::string& device = kDevice) {
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
    if (lines != nullptr) lines->push_back(KindNames(e.mask) + " " + RelativePath(e.root, e.path));
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.message();
  auto position = (*store)->Position("lustre:" + device);
  EXPECT_TRUE(position.ok()) << position.status().message();
  if (position.ok()) out.position = *position;
  return out;
}

// False only while no writer has yet committed the store's schema; any other failure to open
// it fails the test.
bool StoreStarted(const std::string& db) {
  StoreOptions options;
  options.path = db;
  options.read_only = true;
  auto store = EventStore::Open(options);
  if (store.ok()) return true;
  const std::string& message = store.status().message();
  const bool not_yet = message.find("no event store at") != std::string::npos ||
                       message.find("not yet a fathom event store") != std::string::npos;
  EXPECT_TRUE(not_yet) << message;
  return !not_yet;
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
    Subprocess watch(WatchArgs(fs, fathom_user, db, "quiet"));
    // Even rounds kill at a random moment after the start, which on a slow machine may come
    // before the store has a schema; odd rounds once the store is there, while it is writing.
    if (round % 2 == 1) {
      const auto started_by = std::chrono::steady_clock::now() + 30s;
      while (!StoreStarted(db) && std::chrono::steady_clock::now() < started_by) {
        std::this_thread::sleep_for(20ms);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    watch.Signal(SIGKILL);
    watch.Wait();
    if (!StoreStarted(db)) {
      // Killed before its store had a schema (an early kill on a slow machine): nothing is
      // stored, so nothing may have been cleared.
      EXPECT_EQ(ClearedBy(fs.state_dir(), fathom_user), 0u) << "after kill " << round;
      continue;
    }
    const Stored stored = ReadStore(db);
    EXPECT_LE(ClearedBy(fs.state_dir(), fathom_user), stored.position)
        << "the changelog was cleared past the stored position after kill " << round;
  }
  ASSERT_TRUE(workload.Succeeded()) << "the workload failed on the mount";

  // A last run reads what is left, then stops.
  Subprocess last(WatchArgs(fs, fathom_user, db, "quiet"));
  auto state = lustre_sim::SimState::Open(fs.state_dir());
  ASSERT_TRUE(state.ok()) << state.status().message();
  auto final_index = (*state)->LastIndex(0);
  ASSERT_TRUE(final_index.ok()) << final_index.status().message();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while ((!StoreStarted(db) || ReadStore(db).position < *final_index) &&
         std::chrono::steady_clock::now() < deadline) {
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

// Four MDTs: the top-level directories land on MDT0..MDT3, and everything inside each lives
// on its directory's MDT. One `fathom watch` per MDT, following as the work happens; together
// they must report every operation exactly once, at the path it had.
TEST(LustreWatchCommand, FourMdtStreamsReportEveryOperationOnceAtItsPath) {
  constexpr int kMdts = 4;
  MountedFs fs(kMdts);
  ASSERT_TRUE(fs.mounted());
  std::vector<std::string> users;
  for (int mdt = 0; mdt < kMdts; ++mdt) users.push_back(RegisterUser(fs.state_dir(), mdt));

  std::vector<std::unique_ptr<Subprocess>> watchers;
  for (int mdt = 0; mdt < kMdts; ++mdt) {
    const std::string device = "simfs-MDT000" + std::to_string(mdt);
    watchers.push_back(std::make_unique<Subprocess>(WatchArgs(
        fs, users[mdt], fs.dir() / ("mdt" + std::to_string(mdt) + ".db"), "quiet", device)));
    ASSERT_TRUE(watchers.back()->WaitForStderr("watches established", 20s))
        << watchers.back()->stderr_text();
  }
  std::vector<std::string> expected;
  for (int d = 0; d < kMdts; ++d) {
    const std::string dir = "/d" + std::to_string(d);
    MakeDirs(fs.mount() + dir);
    expected.push_back("CREATE,ISDIR " + dir);
    for (int f = 0; f < 25; ++f) {
      const std::string file = dir + "/f" + std::to_string(f);
      WriteFile(fs.mount() + file, "x");
      expected.push_back("CREATE " + file);
      expected.push_back("MODIFY " + file);
      expected.push_back("CLOSE_WRITE " + file);
      if (f % 5 == 0) {
        Rename(fs.mount() + file, fs.mount() + file + ".moved");
        expected.push_back("MOVED_FROM " + file);
        expected.push_back("MOVED_TO " + file + ".moved");
      } else if (f % 5 == 1) {
        ASSERT_EQ(unlink((fs.mount() + file).c_str()), 0);
        expected.push_back("DELETE " + file);
      }
    }
  }

  auto state = lustre_sim::SimState::Open(fs.state_dir());
  ASSERT_TRUE(state.ok()) << state.status().message();
  std::vector<std::string> reported;
  for (int mdt = 0; mdt < kMdts; ++mdt) {
    const std::string device = "simfs-MDT000" + std::to_string(mdt);
    const std::string db = fs.dir() / ("mdt" + std::to_string(mdt) + ".db");
    auto last = (*state)->LastIndex(mdt);
    ASSERT_TRUE(last.ok()) << last.status().message();
    EXPECT_GT(*last, 0u) << "MDT" << mdt << " logged nothing: directories were not spread";
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline &&
           (!StoreStarted(db) || ReadStore(db, nullptr, device).position < *last)) {
      std::this_thread::sleep_for(100ms);
    }
    watchers[mdt]->Signal(SIGTERM);
    EXPECT_EQ(watchers[mdt]->Wait(), 0) << watchers[mdt]->stderr_text();
    ReadStore(db, &reported, device);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(reported.begin(), reported.end());
  EXPECT_EQ(reported, expected);
}

// A renamed directory's later events carry its new path; a hard link is reported at the path
// its record names; a tree removed bottom-up (rm -rf) is reported deepest first, every path
// whole although each parent is gone by the time its children's records are read.
TEST(LustreWatchCommand, RenamedDirectoriesHardLinksAndDeepDeletesHaveTheirPaths) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  Subprocess watch(WatchArgs(fs, user, fs.dir() / "events.db", "inotify"));
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
  const std::string m = fs.mount();
  MakeDirs(m + "/a/b");
  Rename(m + "/a", m + "/z");
  WriteFile(m + "/z/b/f", "x");
  ASSERT_EQ(link((m + "/z/b/f").c_str(), (m + "/z/g").c_str()), 0);
  ASSERT_EQ(unlink((m + "/z/g").c_str()), 0);
  ASSERT_EQ(unlink((m + "/z/b/f").c_str()), 0);
  ASSERT_EQ(rmdir((m + "/z/b").c_str()), 0);
  ASSERT_EQ(rmdir((m + "/z").c_str()), 0);
  const std::vector<std::string> expected = {
      m + " CREATE,ISDIR /a",        m + " CREATE,ISDIR /a/b",    m + " MOVED_FROM,ISDIR /a",
      m + " MOVED_TO,ISDIR /z",      m + " CREATE /z/b/f",         m + " MODIFY /z/b/f",
      m + " CLOSE_WRITE /z/b/f",     m + " CREATE /z/g",           m + " DELETE /z/g",
      m + " DELETE /z/b/f",          m + " DELETE,ISDIR /z/b",     m + " DELETE,ISDIR /z"};
  EXPECT_EQ(watch.ReadAllLines(3s), expected) << watch.stderr_text();
  watch.Signal(SIGTERM);
  EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
}

// A chmod (SATTR, no p=) and a touch (MTIME, p= the parent) of a file with two links are
// reported at its oldest link, the one fid2path lists first, not at the link made last.
TEST(LustreWatchCommand, AttributeChangesOfAHardLinkedFileAreAtItsOldestLink) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  Subprocess watch(WatchArgs(fs, user, fs.dir() / "events.db", "inotify"));
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
  const std::string m = fs.mount();
  MakeDirs(m + "/w/z");
  WriteFile(m + "/w/z/f1.txt", "x");
  ASSERT_EQ(link((m + "/w/z/f1.txt").c_str(), (m + "/w/hl.txt").c_str()), 0);
  ASSERT_EQ(chmod((m + "/w/z/f1.txt").c_str(), 0600), 0);
  ASSERT_EQ(utimes((m + "/w/hl.txt").c_str(), nullptr), 0);
  const std::vector<std::string> expected = {
      m + " CREATE,ISDIR /w",        m + " CREATE,ISDIR /w/z",  m + " CREATE /w/z/f1.txt",
      m + " MODIFY /w/z/f1.txt",     m + " CLOSE_WRITE /w/z/f1.txt", m + " CREATE /w/hl.txt",
      m + " ATTRIB /w/z/f1.txt",     m + " MODIFY /w/z/f1.txt"};
  EXPECT_EQ(watch.ReadLines(expected.size()), expected) << watch.stderr_text();
  watch.Signal(SIGTERM);
  EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
}

// Waits until `done()` holds, for at most `timeout`.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

uint64_t LastIndex(const MountedFs& fs) {
  auto state = lustre_sim::SimState::Open(fs.state_dir());
  EXPECT_TRUE(state.ok()) << state.status().message();
  if (!state.ok()) return 0;
  auto last = (*state)->LastIndex(0);
  return last.ok() ? *last : 0;
}

// Once everything read is stored and nothing more comes, the changelog is cleared up to the
// last record within the clear interval (1 s), not left until more records arrive.
TEST(LustreWatchCommand, IdleWatchClearsUpToTheLastStoredRecordWithinTheInterval) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  const std::string db = fs.dir() / "events.db";
  Subprocess watch(WatchArgs(fs, user, db, "quiet"));
  ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
  // Two bursts, the second right after the first was stored: at most one clear can have
  // happened in between, so the second burst waits for the interval.
  for (const char* name : {"/first", "/second"}) {
    WriteFile(fs.mount() + name, "x");
    const uint64_t last = LastIndex(fs);
    ASSERT_TRUE(WaitFor([&] { return access(db.c_str(), F_OK) == 0 && ReadStore(db).position == last; }))
        << watch.stderr_text();
  }
  const uint64_t last = LastIndex(fs);
  EXPECT_TRUE(WaitFor([&] { return ClearedBy(fs.state_dir(), user) == last; }, 10s))
      << "cleared up to " << ClearedBy(fs.state_dir(), user) << " of " << last;
  watch.Signal(SIGTERM);
  EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
}

// A clean stop (SIGINT, SIGTERM) clears up to the last stored record, the last batch too.
TEST(LustreWatchCommand, CleanStopClearsTheLastBatch) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  for (int sig : {SIGINT, SIGTERM}) {
    const std::string db = fs.dir() / ("events" + std::to_string(sig) + ".db");
    Subprocess watch(WatchArgs(fs, user, db, "quiet"));
    ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
    WriteFile(fs.mount() + "/f" + std::to_string(sig), "x");
    const uint64_t last = LastIndex(fs);
    ASSERT_TRUE(WaitFor([&] { return access(db.c_str(), F_OK) == 0 && ReadStore(db).position == last; }))
        << watch.stderr_text();
    watch.Signal(sig);
    EXPECT_EQ(watch.Wait(), 0) << watch.stderr_text();
    EXPECT_EQ(ClearedBy(fs.state_dir(), user), last) << "signal " << sig;
  }
}

// --mount must be the root of the client mount of the device's file system: a directory
// inside it, or one on no Lustre file system, would make every stored path wrong.
TEST(LustreWatchCommand, MountThatIsNotTheFileSystemsRootIsRefused) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  MakeDirs(fs.mount() + "/sub");
  const std::string plain = fs.dir() / "backing";
  for (const std::string& mount : {fs.mount() + "/sub", plain}) {
    RunResult r = testing::Run({FathomBinary(), "watch", "--source", std::string("lustre:") + kDevice, "--mount", mount,
                       "--lustre-library", LibraryPath(), "-t", "5"});
    EXPECT_EQ(r.exit_code, 1) << mount << ": " << r.err;
    EXPECT_NE(r.err.find("--mount " + mount + " is not the Lustre client mount of simfs"), std::string::npos)
        << r.err;
  }
  RunResult inside = testing::Run({FathomBinary(), "watch", "--source", std::string("lustre:") + kDevice, "--mount",
                          fs.mount() + "/sub", "--lustre-library", LibraryPath(), "-t", "5"});
  EXPECT_NE(inside.err.find("a directory inside simfs"), std::string::npos) << inside.err;
  RunResult elsewhere = testing::Run({FathomBinary(), "watch", "--source", std::string("lustre:") + kDevice, "--mount",
                             plain, "--lustre-library", LibraryPath(), "-t", "5"});
  EXPECT_NE(elsewhere.err.find("on no Lustre file system"), std::string::npos) << elsewhere.err;
}

// An unregistered --changelog-user is refused at start when the changelog can tell (a resumed
// store, or records already cleared), and otherwise stops the watch at its first clear: never
// a run that exits 0 having cleared nothing.
TEST(LustreWatchCommand, UnregisteredChangelogUserIsRefused) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  const std::string db = fs.dir() / "events.db";
  const std::string hint = "changelog user cl9 is not registered on simfs-MDT0000: register one on the MDS "
                           "with `lctl --device simfs-MDT0000 changelog_register`";
  {
    // A fresh changelog: the first clear finds out.
    Subprocess watch(WatchArgs(fs, "cl9", db, "quiet"));
    ASSERT_TRUE(watch.WaitForStderr("watches established", 20s)) << watch.stderr_text();
    WriteFile(fs.mount() + "/f", "x");
    ASSERT_TRUE(watch.WaitForStderr(hint, 20s)) << watch.stderr_text();
    EXPECT_EQ(watch.Wait(), 1) << watch.stderr_text();
  }
  ASSERT_GT(ReadStore(db).position, 0u);
  // Resuming that store: refused at start, before reading anything.
  Subprocess resumed(WatchArgs(fs, "cl9", db, "quiet"));
  ASSERT_TRUE(resumed.WaitForStderr(hint, 20s)) << resumed.stderr_text();
  EXPECT_EQ(resumed.Wait(), 1);
  EXPECT_EQ(resumed.stderr_text().find("watches established"), std::string::npos) << resumed.stderr_text();
  EXPECT_EQ(ClearedBy(fs.state_dir(), user), 0u);
}

TEST(LustreWatchCommand, ChangelogUserWithoutStoreIsBadUsage) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  RunResult r = testing::Run({FathomBinary(), "watch", "--source", std::string("lustre:") + kDevice, "--mount", fs.mount(),
                     "--changelog-user", "cl1", "--lustre-library", LibraryPath(), "-t", "3"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--changelog-user cl1 clears the changelog up to what is stored: give --store FILE too"),
            std::string::npos)
      << r.err;
}

// A record fathom cannot decode is reported as an error naming it, the records around it are
// still reported, and the changelog is never cleared from it on — not even after a restart.
TEST(LustreWatchCommand, MalformedRecordIsNeverClearedEvenAfterARestart) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  const std::string db = fs.dir() / "events.db";
  WriteFile(fs.mount() + "/before", "x");
  MakeDirs(fs.mount() + "/damaged");
  uint64_t bad = 0;
  {
    // Damage the MKDIR record: a NUL inside a name outside a rename. liblustreapi hands it
    // out and it does not decode (made in the emulator's state: no file system makes one).
    auto state = lustre_sim::SimState::Open(fs.state_dir());
    ASSERT_TRUE(state.ok()) << state.status().message();
    bad = (*state)->LastIndex(0).value();
    ASSERT_EQ(SqlExec(fs.state_dir() + "/lustre-sim.db",
                      "UPDATE records SET name = CAST(X'646D6700676564' AS TEXT) WHERE mdt = 0 "
                      "AND idx = " + std::to_string(bad)),
              "");
  }
  WriteFile(fs.mount() + "/after", "x");
  auto state = lustre_sim::SimState::Open(fs.state_dir());
  ASSERT_TRUE(state.ok()) << state.status().message();

  auto run_until_stored = [&](uint64_t index) {
    Subprocess watch(WatchArgs(fs, user, db, "inotify"));
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline &&
           (!StoreStarted(db) || ReadStore(db).position < index)) {
      std::this_thread::sleep_for(100ms);
    }
    std::this_thread::sleep_for(1500ms);  // past the source's clear interval
    watch.Signal(SIGTERM);
    EXPECT_EQ(watch.Wait(), 0);
    return watch.ReadAllLines(1s);
  };
  auto lines = run_until_stored((*state)->LastIndex(0).value());
  EXPECT_NE(std::find(lines.begin(), lines.end(), fs.mount() + " CREATE /after"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), fs.mount() + " CREATE /before"), lines.end());
  EXPECT_EQ(ClearedBy(fs.state_dir(), user), bad - 1);

  WriteFile(fs.mount() + "/later", "x");
  lines = run_until_stored((*state)->LastIndex(0).value());
  EXPECT_NE(std::find(lines.begin(), lines.end(), fs.mount() + " CREATE /later"), lines.end());
  EXPECT_EQ(ClearedBy(fs.state_dir(), user), bad - 1) << "cleared past the malformed record";
  std::vector<lustre::ChangelogRecord> kept;
  ASSERT_TRUE((*state)->Read(0, bad, 1, kept).ok());
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].index, bad);
}

}  // namespace
}  // namespace fathom::testing
