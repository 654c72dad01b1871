// EventStore under stress on real SQLite files: concurrent readers and writers, a writer
// killed mid-append, and a file system that runs out of space.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::IdRange;
using testing::Ids;
using testing::MakeBatch;
using testing::Query;
using testing::ReaderOptions;
using testing::ReplayAll;
using testing::WriterOptions;

TEST(StoreConcurrency, ReaderReplaysWhileAWriterAppendsWithoutBusyErrors) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  auto writer = EventStore::Open(WriterOptions(db));
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  constexpr uint64_t kBatches = 150, kBatchSize = 400;
  // Halfway, the writer waits until the reader has replayed what is there: the reader then
  // replays both while the writer is writing and after, however the threads are scheduled.
  std::mutex mu;
  std::condition_variable cv;
  bool reader_caught_up = false;  // guarded by mu
  std::atomic<bool> writer_done{false};
  Status writer_status;
  std::thread writing([&] {
    for (uint64_t b = 0; b < kBatches && writer_status.ok(); ++b) {
      if (b == kBatches / 2) {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return reader_caught_up; });
      }
      auto batch = MakeBatch(kBatchSize, b * kBatchSize);
      writer_status = writer.value()->Append(batch);
    }
    writer_done = true;
  });

  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  uint64_t seen = 0;
  int passes = 0;
  while (seen < kBatches * kBatchSize) {
    bool done_before = writer_done;
    Status s = reader.value()->Replay(Query(seen), [&](const Event& e) {
      EXPECT_EQ(e.id, seen + 1) << "ids arrive contiguous and in order";
      seen = e.id;
      return true;
    });
    ASSERT_TRUE(s.ok()) << s.message();
    auto last = reader.value()->LastId();
    ASSERT_TRUE(last.ok()) << last.status().message();
    EXPECT_GE(last.value(), seen);
    ++passes;
    if (seen >= kBatches / 2 * kBatchSize) {
      std::lock_guard lock(mu);
      reader_caught_up = true;
      cv.notify_one();
    }
    if (done_before && seen < kBatches * kBatchSize) break;  // the writer finished: no more to come
  }
  writing.join();
  ASSERT_TRUE(writer_status.ok()) << writer_status.message();
  EXPECT_EQ(seen, kBatches * kBatchSize);
  EXPECT_GE(passes, 2) << "the reader replayed before the writer's second half and after it";
}

TEST(StoreConcurrency, TwoWritersInterleaveWithoutBusyErrorsOrDuplicateIds) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  ASSERT_TRUE(EventStore::Open(WriterOptions(db)).ok());
  constexpr int kBatches = 100;
  auto write = [&](const std::string& stem, Status& status, std::vector<uint64_t>& ids) {
    auto store = EventStore::Open(WriterOptions(db));
    if (!store.ok()) {
      status = store.status();
      return;
    }
    for (int b = 0; b < kBatches && status.ok(); ++b) {
      auto batch = MakeBatch(50, 0, stem);
      status = store.value()->Append(batch);
      for (const auto& e : batch) ids.push_back(e.id);
    }
  };
  Status s1, s2;
  std::vector<uint64_t> ids1, ids2;
  std::thread t1([&] { write("x", s1, ids1); });
  std::thread t2([&] { write("y", s2, ids2); });
  t1.join();
  t2.join();
  ASSERT_TRUE(s1.ok()) << s1.message();
  ASSERT_TRUE(s2.ok()) << s2.message();
  std::vector<uint64_t> all = ids1;
  all.insert(all.end(), ids2.begin(), ids2.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, IdRange(1, 2 * kBatches * 50));
  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(Ids(ReplayAll(*reader.value())), IdRange(1, 2 * kBatches * 50));
}

constexpr uint64_t kCrashMaxEvents = 100'000;

// Appends batches forever in a child process, reporting each committed last id on `fd`.
[[noreturn]] void AppendForever(const std::string& db, int fd, bool sync_full) {
  StoreOptions options = WriterOptions(db);
  options.sync_full = sync_full;
  options.max_events = kCrashMaxEvents;
  auto store = EventStore::Open(options);
  if (!store.ok()) _exit(3);
  for (uint64_t i = 0;; ++i) {
    auto batch = MakeBatch(1 + (i * 977) % 3000, i);
    if (!store.value()->Append(batch).ok()) _exit(4);
    uint64_t last = batch.back().id;
    if (write(fd, &last, sizeof last) != sizeof last) _exit(5);
  }
}

TEST(StoreCrash, WriterKilledMidAppendLeavesAConsistentBoundedStoreAndIdsContinue) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  std::mt19937 rng(12345);
  uint64_t previous_last = 0;
  for (int round = 0; round < 8; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      AppendForever(db, fds[1], round % 2 == 0);
    }
    close(fds[1]);
    // Killed at a random moment after its first commit (so that every round commits).
    uint64_t committed = 0, value = 0;
    ASSERT_EQ(read(fds[0], &committed, sizeof committed), static_cast<ssize_t>(sizeof committed))
        << "the writer failed before its first commit";
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 250)(rng)));
    kill(child, SIGKILL);
    int wstatus = 0;
    ASSERT_EQ(waitpid(child, &wstatus, 0), child);
    ASSERT_TRUE(WIFSIGNALED(wstatus))
        << "the writer failed on its own, exit " << WEXITSTATUS(wstatus);
    while (read(fds[0], &value, sizeof value) == sizeof value) committed = value;
    close(fds[0]);

    ASSERT_EQ(testing::IntegrityCheck(db), std::vector<std::string>{"ok"}) << "round " << round;
    auto store = EventStore::Open(WriterOptions(db));
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto last = store.value()->LastId();
    ASSERT_TRUE(last.ok());
    EXPECT_GE(last.value(), committed) << "every reported commit survived the kill";
    EXPECT_GE(last.value(), previous_last) << "ids never go back";
    const uint64_t first = last.value() > kCrashMaxEvents ? last.value() - kCrashMaxEvents + 1 : 1;
    EXPECT_EQ(Ids(ReplayAll(*store.value())), IdRange(first, last.value()))
        << "round " << round << ": contiguous, unique, and within max_events";
    auto batch = MakeBatch(1);
    ASSERT_TRUE(store.value()->Append(batch).ok());
    EXPECT_EQ(batch[0].id, last.value() + 1);
    previous_last = batch[0].id;
  }
  EXPECT_GE(previous_last, 16u) << "every writer committed a batch before being killed";
}

// A tiny tmpfs mounted for one test, unmounted on destruction.
class TinyFileSystem {
 public:
  explicit TinyFileSystem(const std::string& dir, const char* size) : dir_(dir) {
    std::string options = std::string("size=") + size;
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) error_ = errno;
  }
  ~TinyFileSystem() {
    if (error_ == 0) umount2(dir_.c_str(), MNT_DETACH);
  }
  TinyFileSystem(const TinyFileSystem&) = delete;
  TinyFileSystem& operator=(const TinyFileSystem&) = delete;
  int error() const { return error_; }

 private:
  std::string dir_;
  int error_ = 0;
};

class StoreDiskFull : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(fs_.error(), 0) << "mounting a 256 KiB tmpfs on " << dir_.path()
                              << " failed (tests run "
                              << "as root): " << std::strerror(fs_.error());
  }
  // Appends 200-event batches until one fails; returns that failure and the last committed id.
  std::pair<Status, uint64_t> FillUp(EventStore& store) {
    uint64_t committed = 0;
    for (uint64_t i = 0; i < 100'000; i += 200) {
      auto batch = MakeBatch(200, i, "a-somewhat-long-file-name-to-fill-pages-");
      Status s = store.Append(batch);
      if (!s.ok()) {
        EXPECT_EQ(batch[0].id, 0u) << "a failed batch gets no ids";
        return {s, committed};
      }
      committed = batch.back().id;
    }
    return {Status::Ok(), committed};
  }
  testing::TempDir dir_;
  TinyFileSystem fs_{dir_.path(), "256k"};
};

TEST_F(StoreDiskFull, AppendFailsWithAClearErrorAndEveryCommittedEventSurvives) {
  const std::string db = dir_ / "events.db";
  uint64_t committed = 0;
  {
    auto store = EventStore::Open(WriterOptions(db));
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto [status, last] = FillUp(*store.value());
    committed = last;
    ASSERT_FALSE(status.ok()) << "the file system never filled up";
    EXPECT_NE(status.message().find(db), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("disk full"), std::string::npos) << status.message();
    EXPECT_EQ(status.code(), std::error_code(ENOSPC, std::generic_category())) << status.message();
    ASSERT_GT(committed, 0u);
    auto held = store.value()->LastId();
    ASSERT_TRUE(held.ok()) << held.status().message();
    EXPECT_EQ(held.value(), committed) << "the failed batch left nothing behind";
  }
  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ(Ids(ReplayAll(*reader.value())), IdRange(1, committed));
  EXPECT_EQ(testing::IntegrityCheck(db), std::vector<std::string>{"ok"});
}

TEST_F(StoreDiskFull, AppendSucceedsAgainOnceSpaceIsFreed) {
  const std::string db = dir_ / "events.db";
  const std::string ballast = dir_ / "ballast";
  std::ofstream(ballast) << std::string(64 * 1024, 'b');
  auto store = EventStore::Open(WriterOptions(db));
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto [status, committed] = FillUp(*store.value());
  ASSERT_FALSE(status.ok());
  ASSERT_EQ(unlink(ballast.c_str()), 0);
  auto batch = MakeBatch(20);
  Status again = store.value()->Append(batch);
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(batch[0].id, committed + 1) << "no id was used up by the failed batch";
  EXPECT_EQ(Ids(ReplayAll(*store.value())), IdRange(1, committed + 20));
}

}  // namespace
}  // namespace fathom
