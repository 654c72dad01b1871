// fanotify_source_impl.h — the fanotify Source: one group, one mark per file system.
//
// Contract (see fathom/source.h for the interface):
// - One fanotify group reporting directory handles and names (FAN_REPORT_DFID_NAME, plus the
//   object's own handle, FAN_REPORT_FID/FAN_REPORT_TARGET_FID where the kernel has them) and
//   one FAN_MARK_FILESYSTEM mark per distinct file system among the roots: setup cost does
//   not depend on the size of the tree. Renames come as FAN_RENAME records (both names in one
//   record) where the kernel has them, else as MOVED_FROM/MOVED_TO records paired here.
// - The kernel reports the whole file system; events are kept only when their path is a
//   root's entry (or, with `recursive`, anywhere below a root). Paths come from directory
//   handles through a DirPathCache learned from the stream itself (a directory's CREATE or
//   rename carries its handle, its parent's handle and its name), then from later records of
//   the same batch (a removal names the directory it removes), and only then from
//   open_by_handle_at. Records that still cannot be placed are counted in Stats().unresolved.
// - Event semantics follow the inotify source: merged kernel masks are split into separate
//   events in the order they happen (see event_plan.h); a rename is MOVED_FROM + MOVED_TO
//   with a fresh cookie, only the half inside the watched tree when it crosses its edge; a
//   directory moved in from outside is listed and its contents reported as CREATEs after its
//   MOVED_TO (an entry made inside it meanwhile can be reported twice, never not at all);
//   DELETE_SELF/MOVE_SELF are reported for roots only, and a root that is moved or removed is
//   no longer reported on. FAN_Q_OVERFLOW becomes one OVERFLOW per root.
// - Events caused by this process (fathom's own store writes, say) are dropped.
// - With `recursive`, every file system mounted below a root is marked too: those mounted at
//   start (from /proc/self/mountinfo) and those mounted later (the mount table is polled with
//   the fanotify queue). A mount that cannot be marked (no file handles: proc, sysfs, some
//   FUSE and network file systems) or that shows a file system already marked through another
//   mount (a bind mount) is logged as a warning naming it and counted in watch_failures.
//
// Threads: Start/Wait/Drain from one thread; Stop and Stats from any thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fathom/source.h"
#include "sources/fanotify/dir_path_cache.h"
#include "sources/fanotify/writer_attrs.h"
#include "sources/fanotify/event_plan.h"
#include "sources/fanotify/fanotify_records.h"
#include "sources/fanotify/handle_resolver.h"
#include "sources/fanotify/mount_table.h"
#include "core/unique_fd.h"
#include "sources/internal/source_util.h"

namespace fathom::fanotify_internal {

// Settings parsed from SourceOptions::settings ("fanotify.*").
struct FanotifySettings {
  size_t cache_size = 65536;  // "fanotify.cache-size": directory handles kept in the cache
  bool use_rename = true;     // "fanotify.use-rename": FAN_RENAME records where the kernel has them
  bool unlimited_queue = true;  // "fanotify.unlimited-queue": false bounds the kernel queue (16384
                                // events) and its memory, at the risk of OVERFLOW under load
};
Result<FanotifySettings> ParseSettings(const SourceOptions& options);
// The keys ParseSettings() reads.
const std::vector<std::string>& SettingKeys();

// Whether the kernel and the roots' file systems can serve `options`; the error says why not.
Status Detect(const SourceOptions& options);

class FanotifySource final : public Source {
 public:
  static Result<std::unique_ptr<Source>> Create(const SourceOptions& options);

  // Size of one read(2) of the fanotify queue, and how many reads one Drain() does at most
  // (plus a few more when a directory turns out to be gone and a later record may name it).
  static constexpr size_t kReadBufferBytes = 256 * 1024;
  static constexpr int kMaxReadsPerDrain = 8;
  static constexpr int kMaxExtraReadsPerDrain = 8;
  // Parsed-record slots kept between drains (their strings keep their storage); a larger
  // batch's extra slots are freed when it is done.
  static constexpr size_t kKeptRecordSlots = 16384;

  std::string_view name() const override { return "fanotify"; }
  Status Start() override;
  Status Wait(std::chrono::milliseconds timeout) override;
  Status Drain(std::vector<Event>& out) override;
  void Stop() override;
  SourceStats Stats() const override;

 private:
  struct Root {
    std::string path;
    HandleKey key;
    bool active = true;  // false once the root was moved or removed
  };

  FanotifySource(SourceOptions options, FanotifySettings settings, std::vector<std::string> roots,
                 source_internal::StopWaker waker);

  // --- setup (fanotify_source.cpp)
  Status AddMarks();
  // fanotify_mark(FAN_MARK_FILESYSTEM) on the file system holding `path`; 0 or the errno.
  int MarkFileSystem(const std::string& path);
  // Marks the file systems mounted below the roots that are not marked yet, and forgets
  // those unmounted; logs each (`at_start`: the mounts found at start).
  void WatchMounts(bool at_start);
  void WatchMount(const MountEntry& mount, bool at_start);

  // --- reading (fanotify_reader.cpp)
  // One read(2); parses and plans what it got. False when nothing was read (queue empty, read
  // budget spent, or an error, kept in read_error_).
  bool ReadMore(int& budget);
  // ReadMore() from the extra budget, waiting a moment for records when none are queued.
  bool ReadQueuedSoon();
  void Execute(const Step& step, std::vector<Event>& out);
  void ExecuteSingle(const Step& step, std::vector<Event>& out);
  void HandleMove(const RawRecord& from, const HandleKey& to_dir, const std::string& to_name,
                  const RawRecord& rec, size_t at, std::vector<Event>& out);
  void HandleOverflow(std::vector<Event>& out);
  // Lists `dir` (a directory moved into root `root`'s tree) and everything below it, reporting
  // each entry as CREATE, parents before their entries.
  void ReportContents(int root, const std::string& dir, std::vector<Event>& out);
  // The path of directory `key` as of record `at`, into `path`; false when it cannot be placed.
  bool ResolveDir(const HandleKey& key, size_t at, std::string& path);
  // The first record at or after `at` that removes or renames directory `key` (naming it).
  const RawRecord* NamingRecord(const HandleKey& key, size_t at) const;
  // Index of the root `path` is reported under, or -1. `self`: the event is about `path`
  // itself (a root's own ATTRIB, say), not about an entry of its parent.
  int MatchRoot(const std::string& path, bool self) const;
  // MatchRoot(Join(parent, name), false) for a non-empty `name` without '/', decided from the
  // parent alone so that entries outside the watched trees cost no path.
  int MatchParent(const std::string& parent) const;
  // `pid`: the process that made the change (0: none, e.g. an overflow); its attrs.
  void Emit(std::vector<Event>& out, uint32_t mask, uint32_t cookie, int root, std::string path, pid_t pid);
  void CountUnresolved(const RawRecord& r, uint64_t kind);
  uint32_t NextCookie();

  SourceOptions options_;
  FanotifySettings settings_;
  std::vector<Root> roots_;
  DirPathCache cache_;
  WriterAttrs writers_;
  HandleResolver resolver_;
  UniqueFd fan_fd_;
  bool use_rename_ = false;  // FAN_RENAME in the marks' mask
  // Marked file systems by device; and the mounts below the roots that were seen (marked, or
  // warned about), by mount point, with their device.
  struct MarkedFs {
    std::string fsid;
    bool holds_root = false;  // marked for a root: stays until the source stops
  };
  std::map<dev_t, MarkedFs> marked_;
  std::map<std::string, dev_t> mounts_;
  std::optional<MountTable> mount_table_;
  bool mounts_changed_ = false;
  source_internal::StopWaker waker_;
  pid_t own_pid_ = 0;
  bool report_target_fid_ = false;

  std::unique_ptr<uint64_t[]> buf_;
  int64_t read_ts_ = 0;
  Status read_error_;
  // The batch being drained: records_[0, record_count_) (a deque, so that records read while
  // executing do not move the ones in use; slots past the count are reused by the next read),
  // their planned steps, and which records name which directories.
  std::deque<RawRecord> records_;
  size_t record_count_ = 0;
  std::vector<Step> steps_;
  std::unordered_map<HandleKey, std::vector<size_t>> namings_;
  // Scratch for ExecuteSingle() and ResolveDir(), kept for their storage.
  std::string parent_path_;
  HandleKey resolve_key_;
  int extra_reads_ = 0;
  uint32_t last_cookie_ = 0;
  source_internal::SourceCounters counters_;
};

}  // namespace fathom::fanotify_internal
