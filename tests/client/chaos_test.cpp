// Chaos: four emulated MDTs (fathom-lustre-sim fast mode, 250,001 records each: 1,003,908
// events, paced at 15,000 records/s per MDT so that the run lasts at least 16 s whatever the
// machine's speed) collected by four `fathom collect` processes into one `fathom aggregate`
// and read live by two durable `fathom subscribe` consumers, while a random role — collector,
// aggregator or consumer — is SIGKILLed at a random moment and restarted, 24 times (one every
// 50–350 ms, and a restarted aggregator's start-up on top, about 450 ms a kill under the
// sanitizers: at least 20 of them before the last record is due).
//
// At the end the store holds every changelog record exactly once (a rename record as its
// two events, every other record as one), every changelog user is cleared exactly to the
// end, and each durable consumer received every id once and in order. A consumer acknowledges
// after printing, so one killed between printing and acknowledging is sent the unacknowledged
// ids again when it restarts (at-least-once, as for any acknowledging consumer); such a repeat
// may only open a restarted process's output, and the consumer's view (ids above the last one
// it printed) must be exactly the store's ids, with no gap. The seed is printed; set
// FATHOM_CHAOS_SEED to replay a schedule.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "client/distributed_env.h"
#include "sources/lustre/lustre_test_env.h"

namespace fathom::testing {
namespace {

constexpr int kMdts = 4;
// Record 1 makes the MDT's directory, then 4 records per file k = 0..62,499 (fast_log.h).
constexpr uint64_t kRecords = 1 + 4 * 62'500;
constexpr uint64_t kRecordsPerSecond = 15'000;  // per MDT
constexpr int kKills = 24;
constexpr int kConsumers = 2;

// A rename record (phase 2 of file k with k % 64 == 63) is two events, MOVED_FROM + MOVED_TO.
uint64_t EventsOfRecord(uint64_t recno) {
  if (recno < 2) return 1;
  const uint64_t k = (recno - 2) / 4;
  return (recno - 2) % 4 == 2 && k % 64 == 63 ? 2 : 1;
}

// The number after `"key":` in a JSON text, or 0.
uint64_t JsonNumber(std::string_view text, std::string_view key) {
  const std::string needle = "\"" + std::string(key) + "\":";
  const auto at = text.find(needle);
  return at == std::string_view::npos ? 0 : std::strtoull(text.data() + at + needle.size(), nullptr, 10);
}

// One role process, restarted after every kill, owned by its own thread (which also reads its
// output so that no pipe ever fills). `argv(n)` is the command line of incarnation n.
class Role {
 public:
  Role(std::string name, std::function<std::vector<std::string>(int)> argv, bool prints_events)
      : name_(std::move(name)), argv_(std::move(argv)), prints_events_(prints_events) {
    thread_ = std::thread([this] { Run(); });
  }
  ~Role() { Stop(); }

  const std::string& name() const { return name_; }
  // SIGKILL now; returns once the next incarnation was started.
  void Kill() {
    std::unique_lock lock(mu_);
    const int before = incarnations_;
    kill_ = true;
    cv_.wait(lock, [&] { return incarnations_ > before || done_; });
  }
  // SIGTERM and wait; returns the exit code of the last incarnation.
  int Stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    if (thread_.joinable()) thread_.join();
    return last_exit_;
  }
  // The ids printed so far, and where each restarted incarnation's output begins.
  std::vector<uint64_t> ids() const {
    std::lock_guard lock(mu_);
    return ids_;
  }
  std::vector<size_t> restarts() const {
    std::lock_guard lock(mu_);
    return restarts_;
  }
  uint64_t last_id() const {
    std::lock_guard lock(mu_);
    return ids_.empty() ? 0 : ids_.back();
  }
  const std::string& log() const { return log_; }  // after Stop()

 private:
  void Run() {
    for (;;) {
      auto process = std::make_unique<Subprocess>(argv_(incarnations_));
      {
        std::lock_guard lock(mu_);
        ++incarnations_;
        if (incarnations_ > 1) restarts_.push_back(ids_.size());
      }
      cv_.notify_all();
      bool killed = false;
      for (;;) {
        {
          std::lock_guard lock(mu_);
          if (stop_ || kill_) {
            killed = kill_ && !stop_;
            kill_ = false;
            break;
          }
        }
        if (prints_events_) {
          Take(*process, std::chrono::milliseconds(20), 4096);
        } else {
          process->DrainStderr(std::chrono::milliseconds(20));
        }
      }
      process->Signal(killed ? SIGKILL : SIGTERM);
      // To EOF: everything it printed before it died.
      if (prints_events_) Take(*process, std::chrono::seconds(30), SIZE_MAX);
      last_exit_ = process->Wait();
      log_ += process->stderr_text();
      if (!killed) break;
    }
    std::lock_guard lock(mu_);
    done_ = true;
    cv_.notify_all();
  }
  // Reads printed events, each awaited for up to `wait`, until none comes or `most` were read.
  void Take(Subprocess& process, std::chrono::milliseconds wait, size_t most) {
    for (size_t n = 0; n < most; ++n) {
      auto line = process.ReadLine(wait);
      if (!line) return;
      const uint64_t id = JsonNumber(*line, "id");
      std::lock_guard lock(mu_);
      ids_.push_back(id);
    }
  }

  const std::string name_;
  const std::function<std::vector<std::string>(int)> argv_;
  const bool prints_events_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool kill_ = false;
  bool stop_ = false;
  bool done_ = false;
  int incarnations_ = 0;
  std::vector<uint64_t> ids_;
  std::vector<size_t> restarts_;
  int last_exit_ = -1;
  std::string log_;
  std::thread thread_;
};

// Collector positions and the last id, read from the store while the aggregator writes it.
struct Progress {
  uint64_t positions = 0;  // sum over the collectors
  uint64_t last_id = 0;
};

Progress StoreProgress(const std::string& db) {
  Progress p;
  StoreOptions options;
  options.path = db;
  options.read_only = true;
  auto store = EventStore::Open(options);
  if (!store.ok()) return p;
  for (int m = 0; m < kMdts; ++m) {
    auto position = (*store)->Position("mdt" + std::to_string(m));
    if (position.ok()) p.positions += *position;
  }
  auto last = (*store)->LastId();
  if (last.ok()) p.last_id = *last;
  return p;
}

unsigned Seed() {
  const char* env = std::getenv("FATHOM_CHAOS_SEED");
  return env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : std::random_device{}();
}

TEST(Chaos, MillionEventsFromFourMdtsSurviveTwentyFourKillsOfRandomRoles) {
  SimRundir rundir;  // the collectors inherit FATHOM_LUSTRE_SIM_RUNDIR
  const std::string state_dir = rundir.dir() / "state";
  lustre_sim::FastModeConfig fast;
  fast.fsname = "chaos";
  fast.mdts = kMdts;
  fast.state_dir = state_dir;
  fast.records = kRecords;
  fast.rate = kRecordsPerSecond;
  const std::string mount = rundir.dir() / "mnt";  // fast mode mounts nothing: it stands for a mount
  ASSERT_EQ(mkdir(mount.c_str(), 0755), 0);
  fast.mount = mount;
  ASSERT_TRUE(lustre_sim::SetupFastMode(fast).ok());
  std::vector<std::string> users;
  for (int m = 0; m < kMdts; ++m) users.push_back(RegisterUser(state_dir, m));

  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  std::vector<std::unique_ptr<Role>> roles;
  for (int c = 0; c < kConsumers; ++c) {
    const std::string name = "durable" + std::to_string(c);
    roles.push_back(std::make_unique<Role>(
        name,
        [&env, name](int incarnation) {
          std::vector<std::string> options = {"--name", name, "--format", "json"};
          if (incarnation == 0) options.insert(options.end(), {"--since", "0"});
          return env.Subscribe(options);
        },
        true));
  }
  for (int m = 0; m < kMdts; ++m) {
    const std::string device = "chaos-MDT000" + std::to_string(m);
    const std::vector<std::string> args =
        env.Collect("mdt" + std::to_string(m), {"--source", "lustre:" + device, "--mount", mount,
                                                "--changelog-user", users[static_cast<size_t>(m)],
                                                "--lustre-library", LibraryPath()});
    roles.push_back(std::make_unique<Role>("collector mdt" + std::to_string(m), [args](int) { return args; }, false));
  }

  const unsigned seed = Seed();
  std::cout << "[ chaos    ] seed " << seed << " (FATHOM_CHAOS_SEED)\n";
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pause_ms(50, 350);
  std::uniform_int_distribution<size_t> pick(0, roles.size());  // roles.size(): the aggregator
  const uint64_t total_records = kMdts * kRecords;
  int mid_stream_kills = 0;
  std::map<std::string, int> kills_per_role;
  const auto start = std::chrono::steady_clock::now();
  for (int kill = 0; kill < kKills; ++kill) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    env.DrainLog();
    if (StoreProgress(env.store_path()).positions < total_records) ++mid_stream_kills;
    const size_t victim = pick(rng);
    if (victim == roles.size()) {
      env.Kill();
      ASSERT_TRUE(env.Start());
      ++kills_per_role["aggregator"];
    } else {
      roles[victim]->Kill();
      ++kills_per_role[roles[victim]->name()];
    }
  }
  for (const auto& [role, n] : kills_per_role) std::cout << "[ chaos    ] " << role << " killed " << n << " times\n";
  std::cout << "[ chaos    ] " << mid_stream_kills << " kills before every record was stored\n";
  EXPECT_GE(mid_stream_kills, 20) << "the run ended before 20 kills: the workload is too small for this machine";

  // Everything arrives: every record stored, both consumers at the store's last id. Give up
  // when nothing moved for 60 s.
  Progress progress;
  uint64_t consumed = 0;  // sum of the consumers' last ids
  auto caught_up = [&] {
    progress = StoreProgress(env.store_path());
    consumed = 0;
    for (int c = 0; c < kConsumers; ++c) consumed += roles[static_cast<size_t>(c)]->last_id();
    return progress.positions == total_records && consumed == kConsumers * progress.last_id;
  };
  auto moved = std::chrono::steady_clock::now();
  uint64_t last_mark = 0;
  while (!caught_up() && std::chrono::steady_clock::now() - moved < std::chrono::seconds(60)) {
    if (progress.positions + consumed != last_mark) {
      last_mark = progress.positions + consumed;
      moved = std::chrono::steady_clock::now();
    }
    env.DrainLog();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool finished = caught_up();
  for (auto& role : roles) {
    const int exit_code = role->Stop();
    EXPECT_EQ(exit_code, 0) << role->name() << ":\n" << role->log();
    if (!finished) std::cerr << "--- " << role->name() << " (exit " << exit_code << "):\n" << role->log();
  }
  env.Kill();
  ASSERT_TRUE(finished) << "stuck: collectors at " << progress.positions << " of " << total_records
                        << " records, store at id " << progress.last_id << ", consumers at " << consumed;
  std::cout << "[ metric   ] " << progress.last_id << " events through " << kKills << " kills in " << seconds
            << " s\n";

  // The store: every record of every MDT exactly once.
  StoreOptions options;
  options.path = env.store_path();
  options.read_only = true;
  auto store = EventStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<std::vector<uint8_t>> per_record(kMdts, std::vector<uint8_t>(kRecords + 1, 0));
  std::vector<uint64_t> stored_ids;
  uint64_t by_fid = 0;  // records of objects gone before a restarted collector could place them
  stored_ids.reserve(progress.last_id);
  Status replayed = (*store)->Replay({}, [&](const Event& e) {
    const int mdt = e.source.back() - '0';
    const uint64_t recno = JsonNumber(e.attrs, "recno");
    if (mdt >= 0 && mdt < kMdts && recno >= 1 && recno <= kRecords) ++per_record[static_cast<size_t>(mdt)][recno];
    stored_ids.push_back(e.id);
    if (e.path.find("/.lustre/fid/") != std::string::npos) ++by_fid;
    return true;
  });
  ASSERT_TRUE(replayed.ok()) << replayed.message();
  uint64_t expected_events = 0;
  for (int m = 0; m < kMdts; ++m) {
    for (uint64_t r = 1; r <= kRecords; ++r) {
      expected_events += EventsOfRecord(r);
      ASSERT_EQ(per_record[static_cast<size_t>(m)][r], EventsOfRecord(r))
          << "MDT" << m << " record " << r << " stored with the wrong number of events";
    }
    EXPECT_EQ(ClearedBy(state_dir, users[static_cast<size_t>(m)], m), kRecords) << "changelog of MDT" << m;
  }
  ASSERT_EQ(stored_ids.size(), expected_events);
  std::cout << "[ chaos    ] " << by_fid << " events reported by FID (.lustre/fid)\n";
  ASSERT_GE(expected_events, 1'000'000u);

  // Each durable consumer: every stored id once, in order.
  for (int c = 0; c < kConsumers; ++c) {
    const Role& consumer = *roles[static_cast<size_t>(c)];
    const std::vector<uint64_t> got = consumer.ids();
    const std::vector<size_t> restarts = consumer.restarts();
    std::vector<uint64_t> seen;  // the consumer's view: ids above the last one it printed
    seen.reserve(got.size());
    size_t repeated = 0;
    size_t next_restart = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      bool opens_incarnation = false;  // several incarnations may have printed nothing
      while (next_restart < restarts.size() && restarts[next_restart] == i) {
        opens_incarnation = true;
        ++next_restart;
      }
      if (!seen.empty() && got[i] <= seen.back()) {
        // Only a restarted process may begin with ids it was sent before its predecessor died.
        ASSERT_TRUE(i > 0 && (opens_incarnation || (repeated > 0 && got[i] == got[i - 1] + 1)))
            << consumer.name() << ": id " << got[i] << " after " << got[i - 1] << " within one run (line " << i
            << ", " << repeated << " repeated before)";
        ++repeated;
        continue;
      }
      repeated = 0;
      seen.push_back(got[i]);
    }
    for (size_t i = 0; i < std::min(seen.size(), stored_ids.size()); ++i) {
      ASSERT_EQ(seen[i], stored_ids[i]) << consumer.name() << ": a gap or a reordering at event " << i
                                        << " (after id " << (i > 0 ? seen[i - 1] : 0) << ")";
    }
    ASSERT_EQ(seen.size(), stored_ids.size()) << consumer.name();
    std::cout << "[ chaos    ] " << consumer.name() << ": " << restarts.size() << " restarts, "
              << got.size() - seen.size() << " unacknowledged ids sent again\n";
  }
}

}  // namespace
}  // namespace fathom::testing
