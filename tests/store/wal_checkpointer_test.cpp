// WalCheckpointer on real SQLite files: commits wake the checkpointing thread instead of
// checkpointing themselves, a writer far ahead of the thread checkpoints itself, and a
// destroyed checkpointer leaves the writer working.
#include "store/wal_checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "core/thread_priority.h"
#include "store/sqlite_handle.h"
#include "support/temp_dir.h"
#include "support/thread_nice.h"

namespace fathom::store {
namespace {

using namespace std::chrono_literals;

constexpr int kPage = 4096;

class WalCheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_ / "wal.db";
    auto db = Connection::Open(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, 5000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    writer_ = std::move(db).value();
    ASSERT_TRUE(writer_.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", "setup").ok());
    ASSERT_TRUE(writer_.Exec("CREATE TABLE t(x BLOB)", "setup").ok());
  }

  // One transaction adding a row of about three pages.
  void Commit() {
    ASSERT_TRUE(writer_.Exec("INSERT INTO t VALUES(randomblob(10000))", "insert").ok());
  }
  uint64_t WalBytes() const { return std::filesystem::file_size(path_ + "-wal"); }
  int64_t Rows() const { return writer_.QueryInt("SELECT count(*) FROM t", "count").value(); }

  testing::TempDir dir_;
  std::string path_;
  Connection writer_;
};

TEST_F(WalCheckpointerTest, CommitsLeaveCheckpointsToTheThread) {
  auto c = WalCheckpointer::Start(path_, writer_.get(), false, /*background_frames=*/16,
                                  /*inline_frames=*/1'000'000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (int i = 0; i < 300; ++i) {
    const uint64_t before = (*c)->Counts().background;
    Commit();
    if (i % 10 != 9) continue;
    // Every 30 pages or so the WAL is past 16 frames: the thread checkpoints (the writer
    // pauses a moment here, so that the WAL can be started over at its next commit).
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while ((*c)->Counts().background == before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    std::this_thread::sleep_for(2ms);
  }
  const CheckpointCounts counts = (*c)->Counts();
  EXPECT_GE(counts.background, 25u);
  EXPECT_EQ(counts.inline_, 0u);
  EXPECT_EQ(counts.failures, 0u);
  // About 900 pages were committed; the WAL was copied and started over again and again, so
  // its file never held more than a fraction of them (without checkpoints: 3.6 MB).
  EXPECT_LT(WalBytes(), 300u * kPage);
  EXPECT_EQ(Rows(), 300);
}

TEST_F(WalCheckpointerTest, AWriterFarAheadOfTheThreadCheckpointsItself) {
  // The thread is never woken (its threshold is never reached): the commits past 32 frames
  // checkpoint themselves, and the WAL stays bounded.
  auto c = WalCheckpointer::Start(path_, writer_.get(), false, /*background_frames=*/1'000'000,
                                  /*inline_frames=*/32);
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (int i = 0; i < 300; ++i) Commit();
  const CheckpointCounts counts = (*c)->Counts();
  EXPECT_GE(counts.inline_, 20u);
  EXPECT_EQ(counts.background, 0u);
  EXPECT_LT(WalBytes(), 100u * kPage);
  EXPECT_EQ(Rows(), 300);
}

TEST_F(WalCheckpointerTest, TheWriterOutlivesItsCheckpointer) {
  {
    auto c = WalCheckpointer::Start(path_, writer_.get(), true, 4, 64);
    ASSERT_TRUE(c.ok()) << c.status().message();
    for (int i = 0; i < 20; ++i) Commit();
  }
  // The hook is gone with the checkpointer: commits go on (and nothing calls into freed
  // memory, which the sanitizer build would report).
  for (int i = 0; i < 20; ++i) Commit();
  EXPECT_EQ(Rows(), 40);
  EXPECT_EQ(writer_.QueryInt("PRAGMA wal_checkpoint(TRUNCATE)", "checkpoint").value(), 0);
}

// Commits never wait for a checkpoint, so its thread yields the CPU to them.
TEST_F(WalCheckpointerTest, TheThreadRunsBelowTheWriter) {
  auto c = WalCheckpointer::Start(path_, writer_.get(), false, 16, 1'000'000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  std::optional<int> nice;
  while ((nice = testing::NiceOfThread("wal-checkpoint")) != kBackgroundNice &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(nice, kBackgroundNice);
}

}  // namespace
}  // namespace fathom::store
