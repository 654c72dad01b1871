// lustre_source_impl.h — the Lustre changelog Source: one MDT's changelog, read through
// liblustreapi (dlopen), resolved to standard events.
//
// Contract (see fathom/source.h for the interface):
// - Create() refuses a lustre.mount that is not the root of the client mount of the device's
//   file system (llapi_search_fsname names another file system or none, or llapi_path2fid
//   does not give the root FID): every path would be stored wrong.
// - Resume(pos) before Start(): reading starts at record pos+1 (without it, at the oldest
//   record the MDT keeps). Start() opens the changelog (llapi_changelog_start with FOLLOW,
//   JOBID and EXTRA_FLAGS, and every extra flag; errors such as an unknown MDT come from
//   Start()), and starts two threads (changelog_pump.h; the backlog is read first without
//   FOLLOW, then new records are followed):
//   one receives and unpacks records, one resolves them (record_resolver.h) and queues their
//   events in whole batches (changelog_queue.h); at most kMaxQueuedEvents wait for Drain().
// - Drain() hands out whole batches, at most kMaxDrainEvents events per call; Position() is
//   then the index of the last record whose events (possibly none: ignored, filtered out or
//   malformed records) have all been handed out.
// - Acknowledge(pos) clears the changelog for lustre.user only, up to min(pos, Position()),
//   and never from a malformed record on (it stays in the changelog, logged as an error, and
//   is found again after a restart),
//   batched: when kClearEveryRecords records wait, else kClearInterval after the last clear
//   (also when nothing more comes), and once more when the source is destroyed. The clear
//   itself runs on a thread of its own (changelog_clearer.h), so Acknowledge() never waits
//   for the MDT; a failed clear is returned by the next Acknowledge() or Drain(). Without
//   lustre.user nothing is cleared. Start() refuses a lustre.user the MDT does not know
//   (CheckUser) when a clear can tell without clearing what is not stored yet; otherwise the
//   first clear does.
// - Destruction stops both threads; a receiver blocked inside liblustreapi for longer than
//   kStopGrace is left to finish on its own (it owns what it uses) and logged.
//
// Threads: Resume/Start/Wait/Drain/Position and destruction from one thread; Acknowledge from
// one thread (it may be another: the one committing events); Stop, Stats and Counters from
// any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "fathom/source.h"
#include "sources/lustre/changelog_clearer.h"
#include "sources/lustre/changelog_queue.h"
#include "sources/lustre/lustre_library.h"
#include "sources/lustre/lustre_settings.h"
#include "sources/lustre/record_handoff.h"
#include "sources/lustre/record_resolver.h"

namespace fathom::lustre_source {

// What the source did, beyond SourceStats; for tests, benchmarks and logs.
struct LustreCounters {
  uint64_t records = 0;         // records received (malformed ones included)
  uint64_t malformed = 0;       // records that did not unpack (skipped)
  uint64_t ignored = 0;         // records of types that give no event
  uint64_t unresolved = 0;      // records or rename halves that could not be placed
  uint64_t parent_removed = 0;  // PARENT_REMOVED events
  uint64_t fid2path_calls = 0;
  uint64_t fid2path_failures = 0;
  uint64_t batches = 0;  // batches queued by the reader
  uint64_t longest_hold_us = 0;  // the longest a followed batch held its first record
  uint64_t clears = 0;   // llapi_changelog_clear calls
  uint64_t cleared = 0;  // highest record cleared
};

Status Detect(const SourceOptions& options);

class LustreSource final : public Source {
 public:
  static Result<std::unique_ptr<Source>> Create(const SourceOptions& options);
  ~LustreSource() override;

  static constexpr size_t kMaxQueuedEvents = 1u << 16;
  // Drain() hands out whole batches of at most this many events together (or one batch;
  // a batch is at most ChangelogPump::kMaxBatchRecords records, each 3 events at most), so
  // that what one Drain() gives fits one message to the aggregator (wire::kMaxBatchEvents)
  // however far the reader got ahead.
  static constexpr size_t kMaxDrainEvents = 1u << 14;
  static constexpr uint64_t kClearEveryRecords = 8192;
  static constexpr std::chrono::milliseconds kClearInterval{1000};
  static constexpr std::chrono::milliseconds kStopGrace{2000};

  std::string_view name() const override { return name_; }
  Status Start() override;
  Status Wait(std::chrono::milliseconds timeout) override;
  Status Drain(std::vector<Event>& out) override;
  void Stop() override;
  SourceStats Stats() const override;
  Status Resume(uint64_t position) override;
  uint64_t Position() const override { return position_.load(); }
  Status Acknowledge(uint64_t position) override;

  LustreCounters Counters() const;

 private:
  // Batches in flight between the receiving and the resolving thread.
  static constexpr size_t kHandoffDepth = 4;

  LustreSource(SourceOptions options, LustreSettings settings,
               std::shared_ptr<const LustreLibrary> lib, std::shared_ptr<ChangelogQueue> queue);
  ResolverConfig MakeResolverConfig() const;
  // Before Start(): finds a malformed record left before the resume point (the changelog is
  // never cleared past one) and holds clearing below it again.
  Status FindHeldRecord();
  // Before Start(): fails when lustre.user is not a registered changelog user of the MDT.
  Status CheckUser();

  const SourceOptions options_;
  const LustreSettings settings_;
  const std::string name_;
  const std::shared_ptr<const LustreLibrary> lib_;
  const std::shared_ptr<ChangelogQueue> queue_;
  const std::shared_ptr<RecordHandoff> handoff_;
  std::thread receiver_;
  std::thread resolver_;
  bool started_ = false;

  uint64_t next_record_ = 0;  // where Start() begins (0: the oldest record kept)
  std::atomic<uint64_t> position_{0};  // written by Drain(), read by Acknowledge()
  std::unique_ptr<ChangelogClearer> clearer_;  // with lustre.user, from Start() on
  bool held_logged_ = false;
  std::atomic<uint64_t> events_{0};
};

}  // namespace fathom::lustre_source
