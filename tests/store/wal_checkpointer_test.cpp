// WalCheckpointer on real SQLite files: commits wake the checkpointing thread instead of
// checkpointing themselves, a writer far ahead of the thread checkpoints itself, and a
// destroyed checkpointer leaves the writer working.
//
// Nothing here depends on how fast the machine is: the tests wait for the thread to have run
// what was asked of it (WaitUntilIdle), then check what the code guarantees.
#include "store/wal_checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
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
constexpr uint64_t kWalHeader = 32;
constexpr uint64_t kFrame = 24 + kPage;

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
  // The frames the WAL holds now: mxFrame of the wal-index header at the start of the -shm
  // file (sqlite.org/walformat.html), read from the file so that asking checkpoints nothing.
  uint64_t WalFrames() const {
    std::ifstream shm(path_ + "-shm", std::ios::binary);
    char header[48] = {};
    shm.read(header, sizeof header);
    uint32_t frames = 0;
    std::memcpy(&frames, header + 16, sizeof frames);
    return frames;
  }
  int64_t Rows() const { return writer_.QueryInt("SELECT count(*) FROM t", "count").value(); }

  testing::TempDir dir_;
  std::string path_;
  Connection writer_;
};

TEST_F(WalCheckpointerTest, CommitsLeaveCheckpointsToTheThread) {
  auto c = WalCheckpointer::Start(path_, writer_.get(), false, /*background_frames=*/16,
                                  /*inline_frames=*/1'000'000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  uint64_t largest_burst = 0;
  for (int burst = 0; burst < 30; ++burst) {
    // Ten commits of about four frames each: past 16 frames, they ask the thread for a
    // checkpoint (and never run one themselves, far below the hard cap).
    for (int i = 0; i < 10; ++i) Commit();
    largest_burst = std::max(largest_burst, WalFrames());
    // Once the thread has run the checkpoint the last commit asked for, the whole WAL is in
    // the database, and the next commit starts the WAL over from its beginning.
    (*c)->WaitUntilIdle();
  }
  const CheckpointCounts counts = (*c)->Counts();
  EXPECT_GE(counts.background, 30u) << "every burst had the thread checkpoint";
  EXPECT_EQ(counts.inline_, 0u) << "the writer never checkpointed itself below the hard cap";
  EXPECT_EQ(counts.failures, 0u);
  // About 1,200 frames were committed; the WAL restarted after every burst, so its file never
  // held more than one burst (without the thread's checkpoints: all of them, 4.8 MB).
  EXPECT_LE(largest_burst, 80u);
  EXPECT_LE(WalBytes(), kWalHeader + 80u * kFrame);
  Commit();
  EXPECT_LE(WalFrames(), 8u) << "the commit after a checkpoint starts the WAL over";
  EXPECT_EQ(Rows(), 301);
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
  for (int i = 0; i < 10; ++i) Commit();
  // The thread lowers its priority before its first checkpoint: once one has run, it is low.
  (*c)->WaitUntilIdle();
  ASSERT_GE((*c)->Counts().background, 1u);
  EXPECT_EQ(testing::NiceOfThread("wal-checkpoint"), kBackgroundNice);
}

}  // namespace
}  // namespace fathom::store
