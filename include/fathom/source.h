// source.h — the Data Storage Interface: where raw notifications become standard events.
//
// A Source watches one or more roots and hands out resolved Events (absolute paths, rename
// halves paired by a fathom-assigned non-zero cookie and delivered adjacent, MOVED_FROM first).
// Lifecycle: Start() once, then any number of Wait()/Drain() rounds from ONE thread, then
// Stop(). Stop() alone may be called from any thread (or a signal-driven thread); it makes a
// pending Wait() return promptly. Stats() may be called from any thread.
// Sources are created through a SourceRegistry and owned by the caller (std::unique_ptr).
//
// Sources that read a durable log (a Lustre changelog) have positions: Resume() before
// Start() says where the store left off; Position() is the log position covered by every
// event Drain() has handed out so far; after those events are durably committed the caller
// calls Acknowledge() with that position, and only then may the source release the log up
// to it (e.g. clear the changelog). Kernel sources have no positions (Position() == 0).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom {

struct SourceOptions {
  std::vector<std::string> roots;  // absolute, canonical paths (no trailing slash but "/")
  bool recursive = false;          // watch whole subtrees, not just the roots' entries
  uint32_t kinds = kind::kDefault; // kinds the consumer wants; a source may report more
  // Backend-specific settings as namespaced keys, e.g. "fanotify.cache-size" -> "65536".
  std::map<std::string, std::string> settings;
  // Directories (absolute) whose whole subtree the consumer excludes (--exclude): a source that
  // places watches per directory need not watch inside them. Empty: nothing is excluded.
  std::function<bool(std::string_view dir)> excluded_directory;
};

struct SourceStats {
  uint64_t events = 0;      // events handed out by Drain()
  uint64_t overflows = 0;   // times the kernel (or the source) dropped events
  uint64_t rescans = 0;     // reconciling rescans performed
  uint64_t watches = 0;     // kernel watches/marks currently held
  uint64_t unresolved = 0;  // raw events whose path could not be resolved (dropped, logged)
  uint64_t watch_failures = 0;  // directories that could not be watched (limits; logged)
};

class Source {
 public:
  virtual ~Source() = default;
  Source() = default;
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  virtual std::string_view name() const = 0;
  // Places watches or marks. Every change that happens after Start() returns is reported.
  virtual Status Start() = 0;
  // Blocks until Drain() may have events, Stop() was called, or `timeout` passed.
  virtual Status Wait(std::chrono::milliseconds timeout) = 0;
  // Appends every event ready now to `out` without blocking.
  virtual Status Drain(std::vector<Event>& out) = 0;
  // Thread-safe; wakes Wait(). After Stop(), Wait() returns at once.
  virtual void Stop() = 0;
  virtual SourceStats Stats() const = 0;

  // Positions (see above). Resume() before Start(); Position() from the thread that calls
  // Drain(), after it; Acknowledge() from another thread (the one committing), concurrently
  // with Wait()/Drain(), with non-decreasing positions.
  virtual Status Resume(uint64_t /*position*/) { return Status::Ok(); }
  virtual uint64_t Position() const { return 0; }
  virtual Status Acknowledge(uint64_t /*position*/) { return Status::Ok(); }
};

// One registered backend: its name, its rank for "auto", whether it can serve the options
// on this machine (ok, or a Status saying why not), how to build it, the setting keys it reads
// and, optionally, a check of their values (a bad value is a usage error, not a reason to fall
// back to another backend).
struct SourceInfo {
  std::string name;
  int priority = 0;  // higher wins under "auto"
  std::function<Status(const SourceOptions&)> detect;
  std::function<Result<std::unique_ptr<Source>>(const SourceOptions&)> create;
  std::vector<std::string> settings = {};  // e.g. "fanotify.cache-size"
  std::function<Status(const SourceOptions&)> check_settings = {};  // may be empty
  // Under "auto", the check used instead of detect() (may be empty: detect() then): for a
  // backend that can serve any tree when named but should be chosen only where nothing
  // better can (the poll backend, for file systems that do not notify).
  std::function<Status(const SourceOptions&)> auto_detect = {};
};

// Backends by name. Not thread-safe: register everything at start-up, then only Create().
class SourceRegistry {
 public:
  void Register(SourceInfo info);
  // `backend` is a registered name or "auto": the highest-priority backend whose detect()
  // succeeds. `log` receives one line per decision (why a backend was or was not chosen).
  Result<std::unique_ptr<Source>> Create(const std::string& backend, const SourceOptions& opts,
                                         const std::function<void(const std::string&)>& log) const;
  std::vector<std::string> Names() const;
  // Ok when every key of opts.settings is read by some backend and every backend that checks
  // its values accepts them; else an error naming the key and listing the valid ones.
  Status CheckSettings(const SourceOptions& opts) const;

 private:
  std::vector<SourceInfo> infos_;
};

// Registers inotify, fanotify (where built), the Lustre changelog source and the poll source.
void RegisterBuiltinSources(SourceRegistry& registry);

}  // namespace fathom
