// lustre_test_env.h — emulated Lustre file systems for the Lustre source's tests, and a
// small driver for the source.
//
// Each fixture gets its own registry directory (FATHOM_LUSTRE_SIM_RUNDIR, tests run in
// parallel) and state under a TempDir. FastFs sets up fast mode in-process; MountedFs mounts
// a FUSE file system with build/fathom-lustre-sim and always unmounts it in its destructor.
// Changelog users are registered and read back through SimState, the emulator's state.
// The source under test loads the emulator's build/lustre/liblustreapi.so (lustre.library).
// One thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fathom/event.h"
#include "fathom/source.h"
#include "lustre_sim/api/fast_mode.h"
#include "lustre_sim/state/sim_state.h"
#include "sources/lustre/lustre_source.h"
#include "sources/lustre/lustre_source_impl.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {

using namespace std::chrono_literals;

inline std::string LibraryPath() {
  return std::string(FATHOM_BUILD_DIR) + "/lustre/liblustreapi.so";
}
inline std::string SimBinary() { return std::string(FATHOM_BUILD_DIR) + "/fathom-lustre-sim"; }

// A per-test registry directory, set before anything looks for a file system.
class SimRundir {
 public:
  SimRundir() { setenv("FATHOM_LUSTRE_SIM_RUNDIR", (dir_ / "run").c_str(), 1); }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
};

inline uint64_t ClearedBy(const std::string& state_dir, const std::string& user, int mdt = 0) {
  auto state = lustre_sim::SimState::Open(state_dir);
  EXPECT_TRUE(state.ok()) << state.status().message();
  if (!state.ok()) return ~0ull;
  auto users = (*state)->Users(mdt);
  EXPECT_TRUE(users.ok()) << users.status().message();
  if (!users.ok()) return ~0ull;
  for (const auto& u : *users) {
    if (u.name == user) return u.cleared;
  }
  ADD_FAILURE() << "no changelog user " << user;
  return ~0ull;
}

inline std::string RegisterUser(const std::string& state_dir, int mdt = 0) {
  auto state = lustre_sim::SimState::Open(state_dir);
  EXPECT_TRUE(state.ok()) << state.status().message();
  if (!state.ok()) return "";
  auto user = (*state)->RegisterUser(mdt);
  EXPECT_TRUE(user.ok()) << user.status().message();
  return user.ok() ? *user : "";
}

// A fast-mode file system "fastfs" with one MDT and an unbounded generated changelog, paced
// at `rate` records/s (0: unpaced).
class FastFs : public SimRundir {
 public:
  // A log paced at `rate` records/s (0: all at once) whose records are due from `epoch_ns`
  // (0: now) on.
  explicit FastFs(uint64_t rate = 0, uint64_t epoch_ns = 0) {
    lustre_sim::FastModeConfig config;
    config.fsname = "fastfs";
    config.state_dir = dir() / "state";
    config.rate = rate;
    config.epoch_ns = epoch_ns;
    config.mount = "/mnt/fastfs";  // stands for the client mount (nothing is mounted in fast mode)
    Status s = lustre_sim::SetupFastMode(config);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  ~FastFs() { (void)lustre_sim::TeardownFastMode("fastfs"); }
  std::string state_dir() const { return dir() / "state"; }
};

// A FUSE mount of file system "simfs" (`mdts` MDTs) at dir()/mnt, unmounted on destruction.
class MountedFs : public SimRundir {
 public:
  explicit MountedFs(int mdts = 1) {
    mkdir((dir() / "mnt").c_str(), 0755);
    mkdir((dir() / "backing").c_str(), 0755);
    RunResult r = Run({SimBinary(), "mount", "--fsname", "simfs", "--mdts", std::to_string(mdts),
                       "--state", state_dir(), "--backing", dir() / "backing", mount()});
    mounted_ = r.exit_code == 0;
    EXPECT_TRUE(mounted_) << r.err;
  }
  ~MountedFs() {
    if (mounted_) {
      RunResult r = Run({SimBinary(), "umount", mount()});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
  }
  bool mounted() const { return mounted_; }
  std::string mount() const { return dir() / "mnt"; }
  std::string state_dir() const { return dir() / "state"; }

 private:
  bool mounted_ = false;
};

// Creates, starts and drains a Lustre source.
class LustreWatcher {
 public:
  LustreWatcher(std::map<std::string, std::string> settings, std::vector<std::string> roots = {},
                uint32_t kinds = kind::kAll, std::optional<uint64_t> resume = std::nullopt) {
    SourceOptions options;
    options.roots = std::move(roots);
    options.recursive = true;
    options.kinds = kinds;
    options.settings = std::move(settings);
    options.settings.emplace("lustre.library", LibraryPath());
    SourceInfo info = LustreSourceInfo();
    Status usable = info.detect(options);
    EXPECT_TRUE(usable.ok()) << usable.message();
    auto created = info.create(options);
    EXPECT_TRUE(created.ok()) << created.status().message();
    if (!created.ok()) return;
    source_ = std::move(created).value();
    if (resume) {
      Status s = source_->Resume(*resume);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    Status started = source_->Start();
    EXPECT_TRUE(started.ok()) << started.message();
    if (!started.ok()) source_.reset();
  }

  bool ok() const { return source_ != nullptr; }
  Source& source() { return *source_; }
  lustre_source::LustreCounters counters() const {
    return static_cast<const lustre_source::LustreSource&>(*source_).Counters();
  }
  void Destroy() { source_.reset(); }

  // Drains until `done(events)` holds or `timeout` passes; appends to and returns events().
  const std::vector<Event>& CollectUntil(const std::function<bool(const std::vector<Event>&)>& done,
                                         std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done(events_) && std::chrono::steady_clock::now() < deadline) {
      EXPECT_TRUE(source_->Wait(20ms).ok());
      Status s = source_->Drain(events_);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    return events_;
  }
  const std::vector<Event>& Collect(size_t n, std::chrono::milliseconds timeout = 20s) {
    return CollectUntil([n](const std::vector<Event>& e) { return e.size() >= n; }, timeout);
  }
  std::vector<Event>& events() { return events_; }

 private:
  std::unique_ptr<Source> source_;
  std::vector<Event> events_;
};

inline std::string Line(const Event& e) {
  return KindNames(e.mask) + " " + RelativePath(e.root, e.path);
}

}  // namespace fathom::testing
