// Stores on read-only media, through a real read-only mount (a bind mount of a test
// directory, remounted read-only: every write through it fails with EROFS, root's too):
// readers read them whole, writers are refused naming the read-only file system.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "fathom/store.h"
#include "store/store_schema.h"
#include "store/store_test_util.h"
#include "support/read_only_mount.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using testing::IdRange;
using testing::Ids;
using testing::MakeBatch;
using testing::OpenOrDie;
using testing::ReaderOptions;
using testing::ReplayAll;
using testing::WriterOptions;

class ReadOnlyMedia : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(mount_.error(), 0) << "mounting a read-only view of " << rw_.path()
                                 << " failed (tests run as root): " << std::strerror(mount_.error());
  }
  std::string Rw(const std::string& name) const { return rw_ / name; }
  std::string Ro(const std::string& name) const { return view_ + "/" + name; }

  // Fills a store through the writable path and closes it: no -wal or -shm left.
  void WriteIdleStore(uint64_t events) {
    auto store = OpenOrDie(WriterOptions(Rw("events.db")));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(events);
    ASSERT_TRUE(store->Append(batch).ok());
  }

  // A writer process appends `events` through the writable path and is killed (SIGKILL): its
  // -wal (holding those events) and -shm stay beside the store.
  void LeaveAWalBehind(uint64_t events) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      auto store = EventStore::Open(WriterOptions(Rw("events.db")));
      if (!store.ok()) _exit(3);
      auto batch = MakeBatch(events);
      if (!store.value()->Append(batch).ok()) _exit(4);
      char c = 'c';
      if (write(fds[1], &c, 1) != 1) _exit(5);
      pause();
      _exit(0);
    }
    close(fds[1]);
    char c = 0;
    ASSERT_EQ(read(fds[0], &c, 1), 1) << "the writer failed";
    close(fds[0]);
    kill(child, SIGKILL);
    int wstatus = 0;
    ASSERT_EQ(waitpid(child, &wstatus, 0), child);
    ASSERT_GT(std::filesystem::file_size(Rw("events.db-wal")), 32u) << "the events are in the WAL";
    ASSERT_TRUE(std::filesystem::exists(Rw("events.db-shm")));
  }

  testing::TempDir rw_;
  testing::TempDir other_;
  std::string view_ = other_ / "ro";
  testing::ReadOnlyMount mount_{rw_.path(), view_};  // declared last: unmounted first
};

TEST_F(ReadOnlyMedia, TheKernelRefusesWritesThroughTheView) {
  std::ofstream(Ro("probe")) << "x";
  EXPECT_FALSE(std::filesystem::exists(Rw("probe")));
}

TEST_F(ReadOnlyMedia, AnIdleStoreIsReadWholeWithoutItsShmFile) {
  WriteIdleStore(5000);
  auto store = OpenOrDie(ReaderOptions(Ro("events.db")));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(1, 5000));
  EXPECT_EQ(store->LastId().value(), 5000u);
  EXPECT_EQ(store->FirstId().value(), 1u);
  EXPECT_FALSE(std::filesystem::exists(Rw("events.db-shm")));
  // Read as an immutable file: no -shm could be had, and the WAL held nothing.
  auto opened = store::OpenStoreConnection(ReaderOptions(Ro("events.db")));
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_TRUE(opened.value().immutable);
}

TEST_F(ReadOnlyMedia, AStaleShmFileWithoutAWalIsPassedBy) {
  WriteIdleStore(10);
  // Left by some earlier process: SQLite cannot use it read-only without a WAL beside it.
  std::ofstream(Rw("events.db-shm"), std::ios::binary) << std::string(32768, '\0');
  auto store = OpenOrDie(ReaderOptions(Ro("events.db")));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(1, 10));
  auto opened = store::OpenStoreConnection(ReaderOptions(Ro("events.db")));
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_TRUE(opened.value().immutable);
}

TEST_F(ReadOnlyMedia, TheWalOfAKilledWriterIsReadThroughItsShmFile) {
  LeaveAWalBehind(300);
  auto store = OpenOrDie(ReaderOptions(Ro("events.db")));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(1, 300)) << "every committed event, the WAL's too";
  auto opened = store::OpenStoreConnection(ReaderOptions(Ro("events.db")));
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_FALSE(opened.value().immutable);
}

TEST_F(ReadOnlyMedia, AWalWithoutItsShmFileIsRefusedNamingTheReadOnlyFileSystem) {
  LeaveAWalBehind(300);
  ASSERT_EQ(unlink(Rw("events.db-shm").c_str()), 0);
  auto store = EventStore::Open(ReaderOptions(Ro("events.db")));
  ASSERT_FALSE(store.ok()) << "the WAL's events would have been missed";
  const std::string& m = store.status().message();
  EXPECT_NE(m.find("its newest events are still in " + Ro("events.db") + "-wal"), std::string::npos) << m;
  EXPECT_NE(m.find("the file system holding it is mounted read-only"), std::string::npos) << m;
  EXPECT_EQ(store.status().code(), std::error_code(EROFS, std::generic_category()));
}

TEST_F(ReadOnlyMedia, AWriterIsRefusedNamingTheReadOnlyFileSystem) {
  WriteIdleStore(10);
  auto existing = EventStore::Open(WriterOptions(Ro("events.db")));
  ASSERT_FALSE(existing.ok());
  EXPECT_NE(existing.status().message().find("cannot write event store " + Ro("events.db") +
                                             ": the file system holding it is mounted read-only"),
            std::string::npos)
      << existing.status().message();
  EXPECT_NE(existing.status().message().find("Read-only file system"), std::string::npos);
  EXPECT_EQ(existing.status().code(), std::error_code(EROFS, std::generic_category()));

  auto created = EventStore::Open(WriterOptions(Ro("new.db")));
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.status().message().find("cannot create event store " + Ro("new.db") +
                                            ": the file system holding it is mounted read-only"),
            std::string::npos)
      << created.status().message();
  EXPECT_EQ(created.status().code(), std::error_code(EROFS, std::generic_category()));
}

TEST_F(ReadOnlyMedia, AReaderFollowsAWriterThatWritesThroughAWritablePath) {
  auto writer = OpenOrDie(WriterOptions(Rw("events.db")));
  ASSERT_NE(writer, nullptr);
  auto batch = MakeBatch(100);
  ASSERT_TRUE(writer->Append(batch).ok());
  auto reader = OpenOrDie(ReaderOptions(Ro("events.db")));
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(Ids(ReplayAll(*reader)), IdRange(1, 100));
  batch = MakeBatch(50);
  ASSERT_TRUE(writer->Append(batch).ok());
  EXPECT_EQ(reader->LastId().value(), 150u);
  EXPECT_EQ(Ids(ReplayAll(*reader, testing::Query(100))), IdRange(101, 150));
}

TEST_F(ReadOnlyMedia, AnImmutableSnapshotIsOpenedAgainOnceAWriterStarts) {
  WriteIdleStore(10);
  auto reader = OpenOrDie(ReaderOptions(Ro("events.db")));  // immutable: nothing beside it
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->LastId().value(), 10u);
  // A writer starts through the writable path: its -wal appears, and the reader follows.
  auto writer = OpenOrDie(WriterOptions(Rw("events.db")));
  ASSERT_NE(writer, nullptr);
  auto batch = MakeBatch(5);
  ASSERT_TRUE(writer->Append(batch).ok());
  EXPECT_EQ(reader->LastId().value(), 15u);
  EXPECT_EQ(Ids(ReplayAll(*reader, testing::Query(10))), IdRange(11, 15));
  writer.reset();
  EXPECT_EQ(Ids(ReplayAll(*reader)), IdRange(1, 15));
}

TEST_F(ReadOnlyMedia, AnImmutableSnapshotIsOpenedAgainWhenAWriterCameAndWentBetweenTwoReads) {
  WriteIdleStore(10);
  auto reader = OpenOrDie(ReaderOptions(Ro("events.db")));  // immutable: nothing beside it
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->LastId().value(), 10u);
  {
    auto writer = OpenOrDie(WriterOptions(Rw("events.db")));
    ASSERT_NE(writer, nullptr);
    auto batch = MakeBatch(7);
    ASSERT_TRUE(writer->Append(batch).ok());
  }  // closed: its WAL copied into the main file and removed; only the main file changed
  ASSERT_FALSE(std::filesystem::exists(Rw("events.db-wal")));
  EXPECT_EQ(reader->LastId().value(), 17u);
  EXPECT_EQ(Ids(ReplayAll(*reader)), IdRange(1, 17));
}

}  // namespace
}  // namespace fathom
