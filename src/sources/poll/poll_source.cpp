#include "sources/poll/poll_source.h"

#include <sys/stat.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

#include "catalog/scan/scanner.h"
#include "sources/internal/source_util.h"
#include "sources/poll/poll_settings.h"
#include "sources/poll/snapshot.h"
#include "sources/poll/snapshot_diff.h"

namespace fathom {
namespace poll_internal {
namespace {

using Clock = std::chrono::steady_clock;

Status Detect(const SourceOptions& options) {
  if (options.roots.empty()) return Status::Error("poll: no directory to watch was given");
  for (const auto& root : options.roots) {
    struct stat st;
    if (stat(root.c_str(), &st) != 0) return Status::FromErrno(errno, "cannot watch " + root);
    if (!S_ISDIR(st.st_mode)) return Status::Error("cannot watch " + root + ": not a directory");
  }
  return ParseSettings(options).status();
}

Status AutoDetect(const SourceOptions& options) {
  FATHOM_RETURN_IF_ERROR(Detect(options));
  for (const auto& root : options.roots) {
    if (!FileSystemWithoutNotification(root)) {
      return Status::Error(root +
                           " is on a file system whose changes the kernel notifies "
                           "(give --backend poll to scan it anyway)");
    }
  }
  return Status::Ok();
}

// True when `path` is `root` or one of its direct entries.
bool RootOrEntry(const std::string& root, const std::string& path) {
  if (path == root) return true;
  const size_t slash = path.rfind('/');
  return slash != std::string::npos && path.compare(0, std::max<size_t>(slash, 1), root) == 0;
}

class PollSource : public Source {
 public:
  static Result<std::unique_ptr<Source>> Create(const SourceOptions& options) {
    FATHOM_ASSIGN_OR_RETURN(PollSettings settings, ParseSettings(options));
    return std::unique_ptr<Source>(new PollSource(options, settings));
  }

  ~PollSource() override {
    Stop();
    if (thread_.joinable()) thread_.join();
  }

  std::string_view name() const override { return "poll"; }

  Status Start() override {
    if (thread_.joinable()) return Status::Error("poll source: Start() called twice");
    for (const auto& root : roots_) {
      auto fs = FileSystemWithoutNotification(root);
      spdlog::info("poll: scanning {} every {} ms{}", root, settings_.interval.count(),
                   fs ? " (" + *fs + ": no change notification from the kernel)" : "");
    }
    const auto started = Clock::now();
    FATHOM_ASSIGN_OR_RETURN(state_, Pass());
    thread_ = std::thread([this, started] { Loop(started); });
    return Status::Ok();
  }

  Status Wait(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    ready_.wait_for(lock, timeout, [&] { return stopped_ || !pending_.empty(); });
    return Status::Ok();
  }

  Status Drain(std::vector<Event>& out) override {
    std::lock_guard lock(mu_);
    counters_.events += pending_.size();
    for (Event& e : pending_) out.push_back(std::move(e));
    pending_.clear();
    return Status::Ok();
  }

  void Stop() override {
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
    }
    scanner_.Stop();
    ready_.notify_all();
  }

  SourceStats Stats() const override { return counters_.Snapshot(); }

 private:
  PollSource(const SourceOptions& options, PollSettings settings)
      : options_(options),
        settings_(settings),
        roots_(source_internal::DistinctRoots(options.roots, true)),
        scanner_(scan::ScanOptions{.threads = settings.threads}) {}

  Result<Snapshot> Pass() {
    SnapshotBuilder builder;
    FATHOM_RETURN_IF_ERROR(scanner_.Run(roots_, builder));
    counters_.rescans += 1;
    Snapshot snapshot = builder.Take();
    snapshot.set_ended_ns(NowNs());
    return snapshot;
  }

  void Loop(Clock::time_point last_start) {
    for (;;) {
      {
        std::unique_lock lock(mu_);
        ready_.wait_until(lock, last_start + settings_.interval, [&] { return stopped_; });
        if (stopped_) return;
      }
      last_start = Clock::now();
      Result<Snapshot> next = Pass();
      if (!next.ok()) {
        if (next.status().code() == std::errc::operation_canceled) return;
        spdlog::warn("poll: pass failed, the next one is in {} ms: {}", settings_.interval.count(),
                     next.status().message());
        continue;
      }
      std::vector<Event> events;
      DiffSnapshots(state_, *next, NowNs(), cookie_, events);
      state_ = std::move(next).value();
      if (!options_.recursive) {
        std::erase_if(events, [&](const Event& e) { return !RootOrEntry(e.root, e.path); });
      }
      if (Clock::now() - last_start > settings_.interval) {
        counters_.overflows += 1;
        for (const auto& root : roots_) {
          Event e;
          e.ts_ns = NowNs();
          e.mask = kind::kOverflow;
          e.root = root;
          e.path = root;
          e.source = "poll";
          events.push_back(std::move(e));
        }
        spdlog::warn("poll: a pass took longer than the interval ({} ms); raise --interval",
                     settings_.interval.count());
      }
      if (events.empty()) continue;
      std::lock_guard lock(mu_);
      for (Event& e : events) pending_.push_back(std::move(e));
      ready_.notify_all();
    }
  }

  const SourceOptions options_;
  const PollSettings settings_;
  const std::vector<std::string> roots_;
  scan::Scanner scanner_;
  source_internal::SourceCounters counters_;
  Snapshot state_;       // the source thread's (Start()'s before the thread exists)
  uint32_t cookie_ = 0;  // the source thread's
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::vector<Event> pending_;  // guarded by mu_
  bool stopped_ = false;        // guarded by mu_
};

}  // namespace
}  // namespace poll_internal

SourceInfo PollSourceInfo() {
  return {.name = "poll",
          .priority = 30,
          .detect = poll_internal::Detect,
          .create = poll_internal::PollSource::Create,
          .settings = poll_internal::SettingKeys(),
          .check_settings =
              [](const SourceOptions& o) { return poll_internal::ParseSettings(o).status(); },
          .auto_detect = poll_internal::AutoDetect};
}

}  // namespace fathom
