// wal_checkpointer.cpp — PASSIVE checkpoints on a thread of their own, woken by the writer's
// WAL hook; the writer checkpoints itself only when the thread falls far behind.
#include "store/wal_checkpointer.h"

#include <spdlog/spdlog.h>

#include "core/thread_name.h"
#include "core/thread_priority.h"
#include "store/store_schema.h"

namespace fathom::store {

Result<std::unique_ptr<WalCheckpointer>> WalCheckpointer::Start(const std::string& path,
                                                                sqlite3* writer, bool sync_full,
                                                                int background_frames,
                                                                int inline_frames) {
  FATHOM_ASSIGN_OR_RETURN(
      Connection own,
      Connection::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, kBusyTimeoutMs));
  // A checkpoint syncs as its connection's mode says: the same as the writer's.
  FATHOM_RETURN_IF_ERROR(own.Exec(SyncPragma(sync_full), "setting the checkpointer's sync mode"));
  auto checkpointer = std::unique_ptr<WalCheckpointer>(
      new WalCheckpointer(std::move(own), writer, background_frames, inline_frames));
  // Replaces the automatic checkpoint (itself a WAL hook) on the writer.
  sqlite3_wal_hook(writer, &WalCheckpointer::OnCommit, checkpointer.get());
  checkpointer->thread_ = std::thread([c = checkpointer.get()] {
    NameThisThread("wal-checkpoint");
    // Commits never wait for a checkpoint: it yields the CPU to them.
    if (!SetThisThreadNice(kBackgroundNice)) spdlog::debug("wal-checkpoint keeps its priority");
    c->Run();
  });
  return checkpointer;
}

WalCheckpointer::WalCheckpointer(Connection own, sqlite3* writer, int background_frames,
                                 int inline_frames)
    : own_(std::move(own)),
      writer_(writer),
      background_frames_(background_frames),
      inline_frames_(inline_frames) {}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

CheckpointCounts WalCheckpointer::Counts() const {
  return {background_.load(), inline_.load(), failures_.load()};
}

int WalCheckpointer::OnCommit(void* self, sqlite3* db, const char* /*schema*/, int frames) {
  auto* c = static_cast<WalCheckpointer*>(self);
  if (frames >= c->inline_frames_) {
    c->Checkpoint(db, c->inline_);
  } else if (frames >= c->background_frames_) {
    {
      std::lock_guard lock(c->mu_);
      c->wanted_ = true;
    }
    c->wake_.notify_one();
  }
  return SQLITE_OK;
}

void WalCheckpointer::WaitUntilIdle() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return stop_ || (!wanted_ && !running_); });
}

void WalCheckpointer::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || wanted_; });
    if (stop_) break;
    wanted_ = false;
    running_ = true;
    lock.unlock();
    Checkpoint(own_.get(), background_);
    lock.lock();
    running_ = false;
    idle_.notify_all();
  }
  idle_.notify_all();
}

void WalCheckpointer::Checkpoint(sqlite3* db, std::atomic<uint64_t>& done) {
  int log_frames = 0;
  int copied = 0;
  const int rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log_frames,
                                           &copied);
  if (rc == SQLITE_OK) {
    done.fetch_add(1);
    return;
  }
  // BUSY: another checkpoint is running (the writer's or this thread's): nothing to do.
  if ((rc & 0xff) == SQLITE_BUSY) return;
  if (failures_.fetch_add(1) == 0 || failures_.load() % 1000 == 0) {
    spdlog::warn("{}; the events stay in the WAL file and the checkpoint is tried again",
                 SqliteError(own_.path(), db, rc, "checkpointing the WAL").message());
  }
}

}  // namespace fathom::store
