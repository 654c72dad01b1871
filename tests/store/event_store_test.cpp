// EventStore on real SQLite files: ids, retention, replay and the errors of opening.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "fathom/store.h"
#include "store/checksum.h"
#include "store/event_chunk.h"
#include "store/store_test_util.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::IdRange;
using testing::Ids;
using testing::MakeBatch;
using testing::MakeEvent;
using testing::OpenOrDie;
using testing::Query;
using testing::ReaderOptions;
using testing::ReplayAll;
using testing::WriterOptions;

uint64_t LastIdOf(EventStore& store) {
  auto last = store.LastId();
  EXPECT_TRUE(last.ok()) << last.status().message();
  return last.ok() ? last.value() : 0;
}

uint64_t FirstIdOf(EventStore& store) {
  auto first = store.FirstId();
  EXPECT_TRUE(first.ok()) << first.status().message();
  return first.ok() ? first.value() : 0;
}

void AppendOrDie(EventStore& store, std::vector<Event>& batch) {
  Status s = store.Append(batch);
  ASSERT_TRUE(s.ok()) << s.message();
}

TEST(EventStore, NewStoreIsEmpty) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(LastIdOf(*store), 0u);
  EXPECT_EQ(FirstIdOf(*store), 0u);
  EXPECT_TRUE(ReplayAll(*store).empty());
}

TEST(EventStore, IdsIncreaseStrictlyAcrossBatches) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  uint64_t next = 1;
  for (size_t n : {1, 100, 1000, 33}) {
    auto batch = MakeBatch(n, next);
    AppendOrDie(*store, batch);
    EXPECT_EQ(Ids(batch), IdRange(next, next + n - 1)) << "ids written into the batch";
    next += n;
  }
  EXPECT_EQ(LastIdOf(*store), next - 1);
  EXPECT_EQ(FirstIdOf(*store), 1u);
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(1, next - 1));
}

TEST(EventStore, EmptyBatchAssignsNothing) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  std::vector<Event> none;
  AppendOrDie(*store, none);
  EXPECT_EQ(LastIdOf(*store), 0u);
}

TEST(EventStore, EveryFieldRoundTrips) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  Event e;
  e.ts_ns = 1'732'200'000'123'456'789;
  e.mask = kind::kMovedTo | kind::kIsDir;
  e.cookie = 0xfffffff0u;
  e.root = "/srv/data";
  e.path = "/srv/data/répertoire/with space/\xff\xfe-not-utf8";
  e.source = "fanotify";
  e.attrs = R"({"fid":"0x1:0x2","size":42})";
  std::vector<Event> batch{e};
  AppendOrDie(*store, batch);
  e.id = 1;
  auto back = ReplayAll(*store);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], e);
}

TEST(EventStore, IdsContinueAfterReopen) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(250);
    AppendOrDie(*store, batch);
  }
  auto store = OpenOrDie(WriterOptions(db));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(LastIdOf(*store), 250u);
  auto batch = MakeBatch(10, 250);
  AppendOrDie(*store, batch);
  EXPECT_EQ(Ids(batch), IdRange(251, 260));
}

TEST(EventStore, IdsContinueAfterRetentionRemovedEveryEvent) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  StoreOptions options = WriterOptions(db);
  options.max_age = 60s;
  {
    auto store = OpenOrDie(options);
    ASSERT_NE(store, nullptr);
    auto old = MakeBatch(500, 0, "old", NowNs() - int64_t{3600} * 1'000'000'000);
    AppendOrDie(*store, old);
    ASSERT_TRUE(store->Prune().ok());
    EXPECT_EQ(FirstIdOf(*store), 0u) << "every event was older than max_age";
    EXPECT_EQ(LastIdOf(*store), 500u) << "the high-water mark survives";
    EXPECT_TRUE(ReplayAll(*store).empty());
  }
  auto store = OpenOrDie(WriterOptions(db));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(3);
  AppendOrDie(*store, batch);
  EXPECT_EQ(Ids(batch), IdRange(501, 503));
  EXPECT_EQ(FirstIdOf(*store), 501u);
}

TEST(EventStore, MaxEventsKeepsOnlyTheNewestAfterEveryAppend) {
  testing::TempDir dir;
  StoreOptions options = WriterOptions(dir / "events.db");
  options.max_events = 100;
  auto store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  uint64_t total = 0;
  for (int i = 0; i < 12; ++i) {
    auto batch = MakeBatch(37, total);
    AppendOrDie(*store, batch);
    total += 37;
    const uint64_t held = std::min<uint64_t>(total, 100);
    EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(total - held + 1, total)) << "after append " << i;
  }
  EXPECT_EQ(FirstIdOf(*store), total - 99);
  EXPECT_EQ(LastIdOf(*store), total);
}

TEST(EventStore, MaxAgeDropsOlderEventsOnPrune) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));  // unbounded while filling
    ASSERT_NE(store, nullptr);
    auto old = MakeBatch(50, 0, "old", NowNs() - int64_t{7200} * 1'000'000'000);
    auto fresh = MakeBatch(30, 0, "fresh");
    AppendOrDie(*store, old);
    AppendOrDie(*store, fresh);
  }
  StoreOptions options = WriterOptions(db);
  options.max_age = 3600s;
  options.retention_interval = 0s;  // nothing but Prune() removes them here
  auto store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(FirstIdOf(*store), 1u) << "opening alone removes nothing";
  ASSERT_TRUE(store->Prune().ok());
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(51, 80));
}

TEST(EventStore, AppendAppliesMaxAgeWithoutAnExplicitPrune) {
  testing::TempDir dir;
  StoreOptions options = WriterOptions(dir / "events.db");
  options.max_age = 3600s;
  auto store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(40, 0, "old", NowNs() - int64_t{7200} * 1'000'000'000);
  batch.push_back(MakeEvent("/watched/fresh"));
  AppendOrDie(*store, batch);
  EXPECT_EQ(Ids(ReplayAll(*store)), std::vector<uint64_t>{41});
}

TEST(EventStore, PruneRemovesAHugeBacklogInFullAndAppendInBoundedSteps) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  const uint64_t total = 160'000;
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    for (uint64_t i = 0; i < total; i += 8000) {
      auto batch = MakeBatch(8000, i);
      AppendOrDie(*store, batch);
    }
  }
  StoreOptions options = WriterOptions(db);
  options.max_events = 10;
  options.retention_interval = 0s;  // appends alone, here
  {
    auto store = OpenOrDie(options);
    ASSERT_NE(store, nullptr);
    auto one = MakeBatch(1, total);
    AppendOrDie(*store, one);
    const uint64_t first = FirstIdOf(*store);
    EXPECT_GT(first, 1u) << "append started removing the backlog";
    EXPECT_LT(first, total + 1 - 9) << "but one append does not remove it all at once";
  }
  auto store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Prune().ok());
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(total - 8, total + 1));
}

class ReplayQueries : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(WriterOptions(dir_ / "events.db"));
    ASSERT_NE(store_, nullptr);
    std::vector<Event> batch;
    for (const char* p : {"/a/b", "/a/b/c", "/a/bc", "/a/b.txt", "/a/b0", "/a/b/c/d", "/a", "/a/c",
                          "/a/b-x/y", "/a/b/"}) {
      batch.push_back(MakeEvent(p));
    }
    AppendOrDie(*store_, batch);
  }
  std::vector<std::string> Paths(const ReplayQuery& q) {
    std::vector<std::string> paths;
    for (const auto& e : ReplayAll(*store_, q))
      paths.push_back(std::to_string(e.id) + ":" + e.path);
    return paths;
  }
  testing::TempDir dir_;
  std::unique_ptr<EventStore> store_;
};

TEST_F(ReplayQueries, SinceReturnsOnlyLaterEvents) {
  EXPECT_EQ(Ids(ReplayAll(*store_, Query(7))), IdRange(8, 10));
  EXPECT_TRUE(ReplayAll(*store_, Query(10)).empty());
  EXPECT_TRUE(ReplayAll(*store_, Query(1'000'000)).empty());
}

TEST_F(ReplayQueries, LimitStopsAfterThatMany) {
  EXPECT_EQ(Ids(ReplayAll(*store_, Query(2, "", 3))), IdRange(3, 5));
}

TEST_F(ReplayQueries, PrefixMatchesThePathAndItsDescendantsButNotSiblings) {
  const std::vector<std::string> under_a_b{"1:/a/b", "2:/a/b/c", "6:/a/b/c/d", "10:/a/b/"};
  EXPECT_EQ(Paths(Query(0, "/a/b")), under_a_b);
  EXPECT_EQ(Paths(Query(0, "/a/b/")), under_a_b);
  EXPECT_EQ(Paths(Query(0, "/a/bc")), std::vector<std::string>{"3:/a/bc"});
  EXPECT_EQ(Paths(Query(0, "/a/b/c")), (std::vector<std::string>{"2:/a/b/c", "6:/a/b/c/d"}));
  EXPECT_EQ(Paths(Query(0, "/a/x")), std::vector<std::string>{});
  EXPECT_EQ(Paths(Query(0, "/")).size(), 10u);
  EXPECT_EQ(Paths(Query(0, "/a")).size(), 10u);
}

TEST_F(ReplayQueries, SincePrefixAndLimitCombine) {
  EXPECT_EQ(Paths(Query(1, "/a/b", 2)), (std::vector<std::string>{"2:/a/b/c", "6:/a/b/c/d"}));
}

TEST_F(ReplayQueries, ReplayStopsWhenTheCallbackSaysSo) {
  std::vector<uint64_t> seen;
  Status s = store_->Replay({}, [&](const Event& e) {
    seen.push_back(e.id);
    return seen.size() < 4;
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(seen, IdRange(1, 4));
}

TEST(EventStoreOpen, MissingFileSaysToStartWatchFirst) {
  testing::TempDir dir;
  const std::string db = dir / "absent.db";
  auto store = EventStore::Open(ReaderOptions(db));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().message(),
            "no event store at " + db + ": start `fathom watch --store " + db + "` first");
  EXPECT_FALSE(std::filesystem::exists(db)) << "a reader never creates the store";
}

TEST(EventStoreOpen, GarbageFileIsNotAnEventStore) {
  testing::TempDir dir;
  const std::string db = dir / "garbage.db";
  std::ofstream(db) << std::string(8192, 'x');
  for (bool read_only : {true, false}) {
    StoreOptions options = read_only ? ReaderOptions(db) : WriterOptions(db);
    auto store = EventStore::Open(options);
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.status().message().find(db + " is not a fathom event store"), std::string::npos)
        << store.status().message();
  }
}

TEST(EventStoreOpen, SqliteDatabaseOfAnotherApplicationIsNotAnEventStore) {
  testing::TempDir dir;
  const std::string db = dir / "other.db";
  ASSERT_EQ(testing::SqlColumn(db, "CREATE TABLE t(x)", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
            std::vector<std::string>{});
  for (bool read_only : {true, false}) {
    auto store = EventStore::Open(read_only ? ReaderOptions(db) : WriterOptions(db));
    ASSERT_FALSE(store.ok());
    EXPECT_NE(
        store.status().message().find("is not a fathom event store (a SQLite database of another"),
        std::string::npos)
        << store.status().message();
  }
}

TEST(EventStoreOpen, EmptyFileIsNotYetAStoreForAReaderButAWriterInitializesIt) {
  testing::TempDir dir;
  const std::string db = dir / "empty.db";
  std::ofstream{db};
  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("is empty, not yet a fathom event store"),
            std::string::npos);
  auto writer = OpenOrDie(WriterOptions(db));
  ASSERT_NE(writer, nullptr);
  auto batch = MakeBatch(2);
  AppendOrDie(*writer, batch);
  EXPECT_EQ(Ids(batch), IdRange(1, 2));
}

// A writer killed after SQLite wrote the file's header and before the schema was committed
// leaves a database with no tables: a reader is told to start the writer, which finishes it.
TEST(EventStoreOpen, HeaderWithoutSchemaIsNotYetAStoreForAReaderButAWriterInitializesIt) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  ASSERT_EQ(testing::SqlColumn(db, "PRAGMA journal_mode=WAL",
                               SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
            std::vector<std::string>{"wal"});
  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().message(), db + " is empty, not yet a fathom event store: start "
                                            "`fathom watch --store " + db + "` first");
  auto writer = OpenOrDie(WriterOptions(db));
  ASSERT_NE(writer, nullptr);
  auto batch = MakeBatch(3);
  AppendOrDie(*writer, batch);
  EXPECT_EQ(Ids(batch), IdRange(1, 3));
}

TEST(EventStoreOpen, NewerSchemaVersionIsRefusedWithAClearError) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  ASSERT_NE(OpenOrDie(WriterOptions(db)), nullptr);
  testing::SqlColumn(db, "PRAGMA user_version = 7", SQLITE_OPEN_READWRITE);
  for (bool read_only : {true, false}) {
    auto store = EventStore::Open(read_only ? ReaderOptions(db) : WriterOptions(db));
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().message(),
              "event store " + db +
                  " has schema version 7, newer than this fathom understands (2): "
                  "use a newer fathom to read it");
  }
}

TEST(EventStoreOpen, WriterInAMissingDirectorySaysSo) {
  testing::TempDir dir;
  auto store = EventStore::Open(WriterOptions(dir / "no/such/events.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("directory " + dir / "no/such" + " does not exist"),
            std::string::npos)
      << store.status().message();
}

TEST(EventStoreOpen, ReadOnlyStoreRefusesToWrite) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  ASSERT_NE(OpenOrDie(WriterOptions(db)), nullptr);
  auto store = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(1);
  Status s = store->Append(batch);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("opened read-only"), std::string::npos) << s.message();
  EXPECT_FALSE(store->Prune().ok());
}

// Runs `fn` in a child process as an unprivileged user (nobody); returns what it wrote.
std::string AsNobody(const std::function<std::string()>& fn) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t child = fork();
  EXPECT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    const std::string message = fn();
    _exit(write(fds[1], message.data(), message.size()) == static_cast<ssize_t>(message.size())
              ? 0
              : 4);
  }
  close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    message.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int wstatus = 0;
  EXPECT_EQ(waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
      << "child could not drop privileges (tests run as root)";
  return message;
}

// What a reader opening `db` replays: "N events, ids A..B", or why it could not.
std::string ReplaySummary(const std::string& db) {
  auto store = EventStore::Open(ReaderOptions(db));
  if (!store.ok()) return store.status().message();
  uint64_t n = 0, first = 0, last = 0;
  Status s = store.value()->Replay({}, [&](const Event& e) {
    if (n++ == 0) first = e.id;
    last = e.id;
    return true;
  });
  if (!s.ok()) return s.message();
  return std::to_string(n) + " events, ids " + std::to_string(first) + ".." + std::to_string(last);
}

TEST(EventStoreOpen, ReaderWithoutWriteAccessReadsAnIdleStoreAsAnImmutableFile) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto writer = OpenOrDie(WriterOptions(db));
    ASSERT_NE(writer, nullptr);
    auto batch = MakeBatch(3);
    AppendOrDie(*writer, batch);
  }
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(chmod(db.c_str(), 0644), 0);
  // May read the file, not create its -shm beside it: no writer runs and the WAL holds
  // nothing, so the main file is the whole store.
  EXPECT_EQ(AsNobody([&] { return ReplaySummary(db); }), "3 events, ids 1..3");
  EXPECT_FALSE(std::filesystem::exists(db + "-shm"));
}

TEST(EventStoreOpen, ReaderWithoutWriteAccessReadsAStoreWhileItsWriterRuns) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  // The writer in a process of its own (a SQLite connection must not cross a fork): it
  // appends, says so, and holds the store open (-wal and -shm beside it) until told to stop.
  int ready[2], stop[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(stop), 0);
  pid_t writer = fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    close(ready[0]);
    close(stop[1]);
    auto store = EventStore::Open(WriterOptions(db));
    if (!store.ok()) _exit(3);
    auto batch = MakeBatch(5);
    if (!store.value()->Append(batch).ok()) _exit(4);
    char c = 'r';
    if (write(ready[1], &c, 1) != 1) _exit(5);
    (void)read(stop[0], &c, 1);
    _exit(0);
  }
  close(ready[1]);
  close(stop[0]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1) << "the writer failed";
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  ASSERT_TRUE(std::filesystem::exists(db + "-shm"));
  ASSERT_EQ(chmod((db + "-shm").c_str(), 0644), 0);
  ASSERT_EQ(chmod((db + "-wal").c_str(), 0644), 0);
  // The events are in the WAL: read through the writer's -shm, which this user cannot write.
  EXPECT_EQ(AsNobody([&] { return ReplaySummary(db); }), "5 events, ids 1..5");
  close(stop[1]);
  close(ready[0]);
  int wstatus = 0;
  ASSERT_EQ(waitpid(writer, &wstatus, 0), writer);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
}

TEST(EventStoreOpen, CorruptFileGivesAClearErrorNamingTheFile) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto writer = OpenOrDie(WriterOptions(db));
    ASSERT_NE(writer, nullptr);
    auto batch = MakeBatch(5000);
    AppendOrDie(*writer, batch);
  }  // closing checkpoints every page into the file
  {
    std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4096 * 3);  // a page of the events table
    file << std::string(4096 * 4, '\x5a');
  }
  Status failure;
  auto store = EventStore::Open(ReaderOptions(db));
  if (!store.ok()) {
    failure = store.status();
  } else {
    failure = store.value()->Replay({}, [](const Event&) { return true; });
  }
  ASSERT_FALSE(failure.ok()) << "the damage went unnoticed";
  EXPECT_NE(failure.message().find("event store " + db), std::string::npos) << failure.message();
  EXPECT_NE(failure.message().find("fathom store verify"), std::string::npos) << failure.message();
  EXPECT_NE(failure.message().find("fathom store recover"), std::string::npos) << failure.message();
}

TEST(EventStoreOpen, SchemaIsVersionedWalFileWithEventsManyToARow) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  auto store = OpenOrDie(WriterOptions(db));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(5000);
  AppendOrDie(*store, batch);
  EXPECT_EQ(testing::SqlColumn(db, "PRAGMA user_version"), std::vector<std::string>{"2"});
  EXPECT_EQ(testing::SqlColumn(db, "PRAGMA journal_mode"), std::vector<std::string>{"wal"});
  // 5,000 events: one full chunk of 4,096 and one of 904.
  EXPECT_EQ(testing::SqlColumn(db, "SELECT first_id || '-' || last_id FROM chunks ORDER BY 1"),
            (std::vector<std::string>{"1-4096", "4097-5000"}));
}

TEST(EventStoreOpen, VersionOneStoreIsConvertedInPlaceByAWriterAndRefusedByAReader) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  // A store as schema version 1 wrote it: one row per event, ids 3..5 held, last id 6.
  ASSERT_EQ(testing::SqlExec(
      db,
      "CREATE TABLE events(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, mask INTEGER NOT NULL,"
      " cookie INTEGER NOT NULL, root TEXT NOT NULL, path TEXT NOT NULL, source TEXT NOT NULL,"
      " attrs TEXT NOT NULL);"
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
      "INSERT INTO meta VALUES('last_id', 6);"
      "INSERT INTO events VALUES(3, 100, 256, 0, '/w', '/w/a', 'inotify', ''),"
      " (4, 200, 64, 9, '/w', '/w/b', 'inotify', ''),"
      " (5, 300, 128, 9, '/w', '/w/c', 'fanotify', '\"k\":1');"
      "PRAGMA application_id = 1179928653; PRAGMA user_version = 1;"),
            "");
  auto reader = EventStore::Open(ReaderOptions(db));
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("run `fathom watch --store " + db + "` once"),
            std::string::npos)
      << reader.status().message();

  auto store = OpenOrDie(WriterOptions(db));
  ASSERT_NE(store, nullptr);
  auto events = ReplayAll(*store);
  ASSERT_EQ(Ids(events), IdRange(3, 5));
  EXPECT_EQ(events[1].path, "/w/b");
  EXPECT_EQ(events[1].cookie, 9u);
  EXPECT_EQ(events[2].ts_ns, 300);
  EXPECT_EQ(events[2].source, "fanotify");
  EXPECT_EQ(events[2].attrs, "\"k\":1");
  EXPECT_EQ(FirstIdOf(*store), 3u);
  EXPECT_EQ(LastIdOf(*store), 6u);
  auto batch = MakeBatch(1);
  AppendOrDie(*store, batch);
  EXPECT_EQ(Ids(batch), IdRange(7, 7));
  EXPECT_EQ(testing::SqlColumn(db, "SELECT name FROM sqlite_schema WHERE name = 'events'"),
            std::vector<std::string>{});
}

TEST(EventStore, SourcePositionIsCommittedWithItsEventsAndAloneWhenNoEventCameOfIt) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(3);
    Status s = store->Append(batch, SourcePosition{"lustre:fs-MDT0000", 41});
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<Event> none;
    s = store->Append(none, SourcePosition{"lustre:fs-MDT0000", 45});
    ASSERT_TRUE(s.ok()) << s.message();
    s = store->Append(none, SourcePosition{"lustre:fs-MDT0001", 7});
    ASSERT_TRUE(s.ok()) << s.message();
  }
  auto store = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(store, nullptr);
  auto position = store->Position("lustre:fs-MDT0000");
  ASSERT_TRUE(position.ok()) << position.status().message();
  EXPECT_EQ(position.value(), 45u);
  EXPECT_EQ(store->Position("lustre:fs-MDT0001").value(), 7u);
  EXPECT_EQ(store->Position("inotify").value(), 0u);
  EXPECT_EQ(LastIdOf(*store), 3u);
}

TEST(EventStore, ReplayAcrossChunksHonoursSincePrefixAndLimitInsideAChunk) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(10'000);  // three chunks
  AppendOrDie(*store, batch);
  EXPECT_EQ(Ids(ReplayAll(*store, Query(4090, "", 10))), IdRange(4091, 4100));
  auto under = ReplayAll(*store, Query(0, "/watched/f999"));
  EXPECT_EQ(Ids(under), std::vector<uint64_t>{1000});  // "/watched/f9990" is not under it
  EXPECT_EQ(ReplayAll(*store, Query(9'999)).size(), 1u);
}

TEST(EventStore, EncodedChunksAreStoredAsTheyAreOneRowEach) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  auto store = OpenOrDie(WriterOptions(db));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(1000);
  batch[5].attrs = R"({"fid":"0x1:0x2"})";
  batch[10].ts_ns = 5;  // the oldest, inside the first chunk
  const auto events = std::span<const Event>(batch);
  const std::vector<EncodedChunk> chunks{store::MakeChunk(events.first(700)),
                                         store::MakeChunk(events.subspan(700))};
  const SourcePosition position{"mdt0", 1000};
  auto first = store->AppendChunks(chunks, std::span<const SourcePosition>(&position, 1));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first.value(), 1u);
  EXPECT_EQ(testing::SqlColumn(db, "SELECT first_id || '-' || last_id FROM chunks ORDER BY first_id"),
            (std::vector<std::string>{"1-700", "701-1000"}));
  EXPECT_EQ(testing::SqlColumn(db, "SELECT min_ts || '-' || max_ts FROM chunks ORDER BY first_id"),
            (std::vector<std::string>{"5-" + std::to_string(batch[699].ts_ns),
                                      std::to_string(batch[700].ts_ns) + "-" +
                                          std::to_string(batch[999].ts_ns)}));
  EXPECT_EQ(testing::SqlColumn(db, "SELECT hex(data) FROM chunks ORDER BY first_id"),
            (std::vector<std::string>{testing::Hex(*chunks[0].data), testing::Hex(*chunks[1].data)}));
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = i + 1;
  EXPECT_EQ(ReplayAll(*store), batch);
  EXPECT_EQ(store->Position("mdt0").value(), 1000u);
  // The next chunks continue the ids.
  auto next = store->AppendChunks(std::vector<EncodedChunk>{store::MakeChunk(events.first(3))}, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next.value(), 1001u);
  EXPECT_EQ(LastIdOf(*store), 1003u);
}

TEST(EventStore, ChunksReplayAsStoredWithTheOldestIdHeld) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(1000);
  const auto events = std::span<const Event>(batch);
  const std::vector<EncodedChunk> chunks{store::MakeChunk(events.first(400)),
                                         store::MakeChunk(events.subspan(400))};
  ASSERT_TRUE(store->AppendChunks(chunks, {}).ok());
  ASSERT_TRUE(store->PurgeThrough(450).ok());  // the second chunk straddles the floor
  std::vector<StoredChunk> read;
  Status s = store->ReplayChunks(10, [&](const StoredChunk& c) {
    read.push_back(c);
    return true;
  });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(read.size(), 1u);  // the first chunk is gone whole
  EXPECT_EQ(read[0].first_id, 401u);
  EXPECT_EQ(read[0].first_held, 451u);
  EXPECT_EQ(read[0].chunk.count, 600u);
  EXPECT_EQ(*read[0].chunk.data, *chunks[1].data);
  EXPECT_EQ(read[0].chunk.min_ts, chunks[1].min_ts);
  EXPECT_EQ(read[0].chunk.max_ts, chunks[1].max_ts);
  read.clear();
  ASSERT_TRUE(store->ReplayChunks(1000, [&](const StoredChunk& c) {
    read.push_back(c);
    return true;
  }).ok());
  EXPECT_TRUE(read.empty());
}

TEST(EventStore, EncodedChunksWithoutEventsAreRefusedAndNothingIsStored) {
  testing::TempDir dir;
  auto store = OpenOrDie(WriterOptions(dir / "events.db"));
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(100);
  const std::vector<EncodedChunk> with_an_empty_one{store::MakeChunk(batch), EncodedChunk{}};
  const SourcePosition position{"mdt0", 100};
  auto s = store->AppendChunks(with_an_empty_one, std::span<const SourcePosition>(&position, 1));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("holds no events"), std::string::npos) << s.status().message();
  EXPECT_EQ(LastIdOf(*store), 0u);
  EXPECT_EQ(store->Position("mdt0").value(), 0u);
  EXPECT_TRUE(ReplayAll(*store).empty());
}

TEST(EventStore, DamagedChunkIsReportedNotMisread) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(10);
    AppendOrDie(*store, batch);
  }
  testing::SqlColumn(db, "UPDATE chunks SET data = substr(data, 1, length(data) - 3)",
                     SQLITE_OPEN_READWRITE);
  auto store = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(store, nullptr);
  Status s = store->Replay({}, [](const Event&) { return true; });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("event store " + db + ": the chunk of ids 1..10 is damaged (checksum "
                             "mismatch"),
            std::string::npos)
      << s.message();
}

TEST(EventStore, DamagedChunkWithoutAChecksumIsReportedWhenItDoesNotDecode) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(10);
    AppendOrDie(*store, batch);
  }
  // As a row written before checksums were kept.
  testing::SqlColumn(db, "UPDATE chunks SET data = substr(data, 1, length(data) - 3), crc = NULL",
                     SQLITE_OPEN_READWRITE);
  auto store = OpenOrDie(ReaderOptions(db));
  ASSERT_NE(store, nullptr);
  Status s = store->Replay({}, [](const Event&) { return true; });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the chunk of ids 1..10 is damaged (damaged event chunk at id"),
            std::string::npos)
      << s.message();
}

TEST(EventStore, ChunksCarryTheirChecksumAndStoresWithoutTheColumnGetItFromTheirWriter) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  {
    auto store = OpenOrDie(WriterOptions(db));
    ASSERT_NE(store, nullptr);
    auto batch = MakeBatch(10);
    AppendOrDie(*store, batch);
  }
  const auto data = testing::SqlColumn(db, "SELECT hex(data) FROM chunks");
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(testing::SqlColumn(db, "SELECT crc FROM chunks").at(0),
            std::to_string(store::Crc32c(testing::Unhex(data[0]))));
  // A version 2 store written before checksums: no crc column. Readers read it as it is.
  ASSERT_EQ(testing::SqlExec(db, "ALTER TABLE chunks DROP COLUMN crc"), "");
  {
    auto reader = OpenOrDie(ReaderOptions(db));
    ASSERT_NE(reader, nullptr);
    EXPECT_EQ(Ids(ReplayAll(*reader)), IdRange(1, 10));
  }
  auto store = OpenOrDie(WriterOptions(db));  // adds the column; old rows keep NULL
  ASSERT_NE(store, nullptr);
  auto batch = MakeBatch(5);
  AppendOrDie(*store, batch);
  EXPECT_EQ(testing::SqlColumn(db, "SELECT first_id || ':' || (crc IS NULL) FROM chunks ORDER BY 1"),
            (std::vector<std::string>{"11:0", "1:1"}));
  EXPECT_EQ(Ids(ReplayAll(*store)), IdRange(1, 15));
}

}  // namespace
}  // namespace fathom
