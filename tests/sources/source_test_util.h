// source_test_util.h — drive a Source (inotify, fanotify) directly in tests.
//
// SourceWatcher creates a source through its SourceInfo, starts it, and drains it either on
// the calling thread (Collect*) or on a background thread (StartBackground/Snapshot), always
// with deadlines. Watcher and FanWatcher are the inotify and fanotify flavours. One watcher
// per source; Snapshot() may be called while the background thread runs.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fathom/event.h"
#include "fathom/source.h"
#include "sources/fanotify/fanotify_source.h"
#include "sources/inotify/inotify_source.h"
#include "support/tree_replay.h"

namespace fathom::testing {

using namespace std::chrono_literals;

// Runs `work` in a forked child and waits for it; false when it threw or failed. (The fanotify
// source ignores events caused by its own process, so its workloads run in a child.)
inline bool RunInChild(const std::function<void()>& work) {
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    try {
      work();
    } catch (...) {
      _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// "ROOT KINDS /relative", as Table II and `fathom watch --format inotify` print it.
inline std::string Line(const Event& e) {
  return e.root + " " + KindNames(e.mask) + " " + RelativePath(e.root, e.path);
}

inline std::vector<std::string> Lines(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(Line(e));
  return out;
}

class SourceWatcher {
 public:
  SourceWatcher(SourceInfo info, std::vector<std::string> roots, bool recursive, uint32_t kinds,
                std::map<std::string, std::string> settings)
      : info_(std::move(info)) {
    options_.roots = std::move(roots);
    options_.recursive = recursive;
    options_.kinds = kinds;
    options_.settings = std::move(settings);
  }
  ~SourceWatcher() { StopBackground(); }

  // Creates and starts the source; the Status of whichever step failed.
  Status Start() {
    auto created = info_.create(options_);
    if (!created.ok()) return created.status();
    source_ = std::move(created).value();
    return source_->Start();
  }
  Source& source() { return *source_; }

  // Drains until `done(events so far)` holds or `timeout` passes; returns every event.
  std::vector<Event> CollectUntil(const std::function<bool(const std::vector<Event>&)>& done,
                                  std::chrono::milliseconds timeout = 10s) {
    std::vector<Event> out;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done(out) && std::chrono::steady_clock::now() < deadline) {
      EXPECT_TRUE(source_->Wait(20ms).ok());
      EXPECT_TRUE(source_->Drain(out).ok());
    }
    return out;
  }
  // Drains until an event about `path` arrives (a marker the workload made last).
  std::vector<Event> CollectThrough(const std::string& path,
                                    std::chrono::milliseconds timeout = 10s) {
    return CollectUntil(
        [&](const std::vector<Event>& ev) { return !ev.empty() && ev.back().path == path; },
        timeout);
  }
  std::vector<Event> Collect(size_t n, std::chrono::milliseconds timeout = 10s) {
    return CollectUntil([n](const std::vector<Event>& e) { return e.size() >= n; }, timeout);
  }
  // Everything that arrives until nothing has come for `quiet`.
  std::vector<Event> CollectQuiet(std::chrono::milliseconds quiet = 300ms) {
    std::vector<Event> out;
    auto last = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - last < quiet) {
      EXPECT_TRUE(source_->Wait(20ms).ok());
      const size_t before = out.size();
      EXPECT_TRUE(source_->Drain(out).ok());
      if (out.size() != before) last = std::chrono::steady_clock::now();
    }
    return out;
  }

  // Drains on a background thread into an internal list (see Snapshot()).
  void StartBackground() {
    running_ = true;
    thread_ = std::thread([this] {
      std::vector<Event> batch;
      while (running_) {
        if (!source_->Wait(50ms).ok()) break;
        batch.clear();
        if (!source_->Drain(batch).ok()) break;
        std::lock_guard lock(mu_);
        background_.insert(background_.end(), batch.begin(), batch.end());
      }
    });
  }
  void StopBackground() {
    if (!thread_.joinable()) return;
    running_ = false;
    source_->Stop();
    thread_.join();
  }
  std::vector<Event> Snapshot() {
    std::lock_guard lock(mu_);
    return background_;
  }
  // Waits until `done(Snapshot())` holds or `timeout` passes; returns the last snapshot.
  std::vector<Event> WaitBackground(const std::function<bool(const std::vector<Event>&)>& done,
                                    std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto snap = Snapshot();
      if (done(snap) || std::chrono::steady_clock::now() >= deadline) return snap;
      std::this_thread::sleep_for(5ms);
    }
  }

 private:
  SourceInfo info_;
  SourceOptions options_;
  std::unique_ptr<Source> source_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::mutex mu_;
  std::vector<Event> background_;
};

class Watcher : public SourceWatcher {
 public:
  explicit Watcher(std::vector<std::string> roots, bool recursive = true,
                   uint32_t kinds = kind::kDefault)
      : SourceWatcher(InotifySourceInfo(), std::move(roots), recursive, kinds, {}) {}
};

class FanWatcher : public SourceWatcher {
 public:
  explicit FanWatcher(std::vector<std::string> roots, bool recursive = true,
                      std::map<std::string, std::string> settings = {},
                      uint32_t kinds = kind::kDefault)
      : SourceWatcher(FanotifySourceInfo(), std::move(roots), recursive, kinds, std::move(settings)) {}
};

}  // namespace fathom::testing
