// fanotify_test_util.h — drive a fanotify Source directly in tests.
//
// The fanotify source drops events caused by its own process, so every workload runs in a
// forked child (RunInChild). FanWatcher creates the source through FanotifySourceInfo(),
// starts it and drains it on the calling thread with deadlines. One FanWatcher per source.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fathom/event.h"
#include "fathom/source.h"
#include "sources/fanotify/fanotify_source.h"

namespace fathom::testing {

using namespace std::chrono_literals;

// Runs `work` in a forked child and waits for it; false when it threw or failed.
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
inline std::string FanLine(const Event& e) {
  return e.root + " " + KindNames(e.mask) + " " + RelativePath(e.root, e.path);
}

inline std::vector<std::string> FanLines(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(FanLine(e));
  return out;
}

class FanWatcher {
 public:
  explicit FanWatcher(std::vector<std::string> roots, bool recursive = true,
                      std::map<std::string, std::string> settings = {},
                      uint32_t kinds = kind::kDefault) {
    options_.roots = std::move(roots);
    options_.recursive = recursive;
    options_.kinds = kinds;
    options_.settings = std::move(settings);
  }

  Status Start() {
    auto created = FanotifySourceInfo().create(options_);
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

 private:
  SourceOptions options_;
  std::unique_ptr<Source> source_;
};

}  // namespace fathom::testing
