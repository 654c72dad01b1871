// wal_checkpointer.h — moves a writer's WAL checkpoints onto a thread of their own.
//
// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: that commit
// copies the WAL into the database and syncs both files (10–30 ms on a disk), and whoever waits
// for it (a collector waiting for its acknowledgement) waits that long. A WalCheckpointer turns
// the writer's automatic checkpoint off and installs a WAL hook instead: once the WAL holds
// `background_frames` frames, the commit only wakes the checkpointer's thread, which runs
// PASSIVE checkpoints on its own connection (they never block the writer, and the writer
// restarts the WAL at its next transaction once everything is copied). Should the WAL
// still reach `inline_frames` (the thread cannot keep up with a writer that never pauses),
// the commit checkpoints itself, as SQLite would, so the WAL stays bounded.
//
// Ownership: the writer connection is borrowed and must outlive the checkpointer, which
// removes its hook on destruction. A checkpoint that fails on the thread (disk full) is
// logged and retried at the next wake-up; the data stays in the WAL, which readers see.
// Counts() from any thread; the rest from the writer's thread.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "fathom/status.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

struct CheckpointCounts {
  uint64_t background = 0;  // PASSIVE checkpoints completed by the thread
  uint64_t inline_ = 0;     // checkpoints the writer's commits had to run themselves
  uint64_t failures = 0;    // checkpoints that failed (either kind)
};

class WalCheckpointer {
 public:
  static constexpr int kBackgroundFrames = 1000;  // SQLite's own default threshold
  static constexpr int kInlineFrames = 16384;     // 64 MiB of 4 KiB pages

  // Opens a second connection to `path` (already in WAL mode; `sync_full` as the writer's)
  // and hooks `writer`.
  static Result<std::unique_ptr<WalCheckpointer>> Start(const std::string& path, sqlite3* writer,
                                                        bool sync_full,
                                                        int background_frames = kBackgroundFrames,
                                                        int inline_frames = kInlineFrames);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  CheckpointCounts Counts() const;
  // Blocks until the thread has run every checkpoint asked for so far: one that a commit
  // before this call asked for has then started after that commit, and, with no reader in the
  // way, copied the whole WAL (which the writer's next transaction then starts over).
  void WaitUntilIdle();

 private:
  WalCheckpointer(Connection own, sqlite3* writer, int background_frames, int inline_frames);
  static int OnCommit(void* self, sqlite3* db, const char* schema, int frames);
  void Run();
  void Checkpoint(sqlite3* db, std::atomic<uint64_t>& done);

  Connection own_;
  sqlite3* const writer_;
  const int background_frames_;
  const int inline_frames_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  bool wanted_ = false;   // guarded by mu_
  bool running_ = false;  // guarded by mu_: a checkpoint is under way on the thread
  bool stop_ = false;     // guarded by mu_
  std::atomic<uint64_t> background_{0};
  std::atomic<uint64_t> inline_{0};
  std::atomic<uint64_t> failures_{0};
  std::thread thread_;
};

}  // namespace fathom::store
