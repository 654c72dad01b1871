// `fathom events` end to end: the real binary replaying a real SQLite store that the test
// filled through the library.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "fathom/store.h"
#include "store/store_test_util.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::IdRange;
using testing::MakeEvent;
using testing::RunResult;
using testing::Subprocess;

using testing::Lines;

std::vector<uint64_t> JsonIds(const std::vector<std::string>& lines) {
  std::vector<uint64_t> ids;
  for (const auto& line : lines) ids.push_back(nlohmann::json::parse(line)["id"].get<uint64_t>());
  return ids;
}

RunResult Events(const std::string& db, std::vector<std::string> extra) {
  std::vector<std::string> argv{FathomBinary(), "events", "--store", db};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return testing::Run(argv, 20s);
}

class EventsCommand : public ::testing::Test {
 protected:
  // Events 1..12 under /watched: files f1..f10, then a directory "a" and its sibling "ab".
  void SetUp() override {
    auto store = EventStore::Open(testing::WriterOptions(db_));
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<Event> batch;
    for (int i = 1; i <= 10; ++i) batch.push_back(MakeEvent("/watched/f" + std::to_string(i)));
    batch.push_back(MakeEvent("/watched/a/x", NowNs(), kind::kCreate | kind::kIsDir));
    batch.push_back(MakeEvent("/watched/ab", NowNs(), kind::kDelete));
    ASSERT_TRUE(store.value()->Append(batch).ok());
  }
  testing::TempDir dir_;
  std::string db_ = dir_ / "events.db";
};

TEST_F(EventsCommand, SincePrintsExactlyTheLaterEventsAsJson) {
  auto r = Events(db_, {"--since", "8", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  EXPECT_EQ(JsonIds(lines), IdRange(9, 12));
  auto first = nlohmann::json::parse(lines.at(0));
  EXPECT_EQ(first["path"], "/watched/f9");
  EXPECT_EQ(first["events"], nlohmann::json::array({"CREATE"}));
  EXPECT_EQ(first["source"], "inotify");
  auto dir_event = nlohmann::json::parse(lines.at(2));
  EXPECT_EQ(dir_event["events"], nlohmann::json::array({"CREATE", "ISDIR"}));
}

TEST_F(EventsCommand, SincePrintsExactlyTheLaterEventsInInotifyFormat) {
  auto r = Events(db_, {"--since", "9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"/watched CREATE /f10", "/watched CREATE,ISDIR /a/x",
                                      "/watched DELETE /ab"}));
}

TEST_F(EventsCommand, WithoutSincePrintsEverythingHeld) {
  auto r = Events(db_, {"--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonIds(Lines(r.out)), IdRange(1, 12));
}

TEST_F(EventsCommand, SinceTheLastIdPrintsNothing) {
  auto r = Events(db_, {"--since", "12"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(EventsCommand, PathSelectsTheDirectoryAndItsEntriesNotSiblings) {
  auto r = Events(db_, {"--path", "/watched/a", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonIds(Lines(r.out)), std::vector<uint64_t>{11});
  r = Events(db_, {"--path", "/watched/f1", "--since", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), std::vector<std::string>{"/watched CREATE /f1"}) << "f10 is a sibling";
}

// --path means what it means for `fathom subscribe`: the path and its direct entries, and with
// -r everything under it.
TEST_F(EventsCommand, PathWithoutRecursiveStopsAtDirectEntries) {
  auto r = Events(db_, {"--path", "/watched", "--since", "9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"/watched CREATE /f10", "/watched DELETE /ab"}));
  r = Events(db_, {"--path", "/watched", "-r", "--since", "9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"/watched CREATE /f10", "/watched CREATE,ISDIR /a/x",
                                      "/watched DELETE /ab"}));
}

TEST_F(EventsCommand, LimitStopsAfterThatMany) {
  auto r = Events(db_, {"--since", "2", "--max-count", "3", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonIds(Lines(r.out)), IdRange(3, 5));
}

TEST_F(EventsCommand, OtherVocabulariesAreAvailable) {
  for (const char* format : {"kqueue", "fsevents", "windows"}) {
    auto r = Events(db_, {"--since", "11", "--format", format});
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_NE(r.out, "") << format;
  }
}

TEST_F(EventsCommand, SinceBeyondTheNewestIdFails) {
  auto r = Events(db_, {"--since", "13"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--since 13 is past the newest id of " + db_ + " (12)"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(EventsCommandRetention, SinceIntoARemovedRangeFailsNamingTheMissingIds) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  StoreOptions options = testing::WriterOptions(db);
  options.max_events = 5;
  auto store = EventStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto batch = testing::MakeBatch(20);
  ASSERT_TRUE(store.value()->Append(batch).ok());
  ASSERT_EQ(store.value()->FirstId().value(), 16u);

  auto r = Events(db, {"--since", "3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "") << "nothing is printed past a gap";
  EXPECT_NE(
      r.err.find(
          "events 4..15 were removed by retention (max-events/max-age); the oldest held is 16"),
      std::string::npos)
      << r.err;

  r = Events(db, {"--since", "14"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("event 15 was removed by retention"), std::string::npos) << r.err;

  r = Events(db, {"--since", "0"});
  EXPECT_EQ(r.exit_code, 1) << "--since 0 asks for event 1 on, which is gone";

  r = Events(db, {"--since", "15", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonIds(Lines(r.out)), IdRange(16, 20));

  r = Events(db, {"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonIds(Lines(r.out)), IdRange(16, 20)) << "without --since: everything held";
}

TEST(EventsCommandErrors, MissingStoreFailsSayingToStartWatch) {
  testing::TempDir dir;
  const std::string db = dir / "absent.db";
  auto r = Events(db, {});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(
      r.err.find("no event store at " + db + ": start `fathom watch --store " + db + "` first"),
      std::string::npos)
      << r.err;
}

TEST(EventsCommandErrors, NonStoreFileFails) {
  testing::TempDir dir;
  const std::string db = dir / "notes.txt";
  testing::SqlColumn(db, "CREATE TABLE t(x)", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  auto r = Events(db, {});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(db + " is not a fathom event store"), std::string::npos) << r.err;
}

TEST(EventsCommandErrors, BadUsageExitsTwo) {
  testing::TempDir dir;
  const std::string db = dir / "events.db";
  ASSERT_TRUE(EventStore::Open(testing::WriterOptions(db)).ok());
  for (const auto& args : std::vector<std::vector<std::string>>{
           {FathomBinary(), "events"},
           {FathomBinary(), "events", "--store", db, "--since", "ten"},
           {FathomBinary(), "events", "--store", db, "--since", "-1"},
           {FathomBinary(), "events", "--store", db, "--format", "xml"},
           {FathomBinary(), "events", "--store", db, "--max-count"},
           {FathomBinary(), "events", "--store", db, "-n", "-1"},
           {FathomBinary(), "events", "--store", db, "-t", "-1"},
           {FathomBinary(), "events", "--store", db, "--no-such-flag"}}) {
    auto r = testing::Run(args, 20s);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
  }
}

class EventsFollow : public EventsCommand {
 protected:
  void AppendMore(std::vector<std::string> paths) {
    std::vector<Event> batch;
    for (auto& p : paths) batch.push_back(MakeEvent(p));
    Status s = writer_->Append(batch);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  void SetUp() override {
    EventsCommand::SetUp();
    auto store = EventStore::Open(testing::WriterOptions(db_));
    ASSERT_TRUE(store.ok()) << store.status().message();
    writer_ = std::move(store.value());
  }
  std::unique_ptr<EventStore> writer_;
};

TEST_F(EventsFollow, FollowPrintsNewEventsAsTheyAreStoredUntilSigterm) {
  Subprocess p(
      {FathomBinary(), "events", "--store", db_, "--since", "10", "--follow", "--format", "json"});
  EXPECT_EQ(JsonIds(p.ReadLines(2)), IdRange(11, 12));
  AppendMore({"/watched/g1", "/watched/g2"});
  EXPECT_EQ(JsonIds(p.ReadLines(2)), IdRange(13, 14));
  AppendMore({"/watched/g3"});
  EXPECT_EQ(JsonIds(p.ReadLines(1)), IdRange(15, 15));
  EXPECT_FALSE(p.ReadLine(300ms).has_value()) << "nothing beyond what was stored";
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(), 0) << p.stderr_text();
}

TEST_F(EventsFollow, TimeoutEndsFollowing) {
  auto r = Events(db_, {"--follow", "-t", "0.5", "--since", "11"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), std::vector<std::string>{"/watched DELETE /ab"});
}

TEST_F(EventsFollow, FollowAppliesThePathFilterToNewEvents) {
  Subprocess p({FathomBinary(), "events", "--store", db_, "--path", "/watched/a", "--follow"});
  EXPECT_EQ(p.ReadLines(1), std::vector<std::string>{"/watched CREATE,ISDIR /a/x"});
  AppendMore({"/watched/ab/1", "/watched/a/2", "/watched/b", "/watched/a"});
  EXPECT_EQ(p.ReadLines(2),
            (std::vector<std::string>{"/watched CREATE /a/2", "/watched CREATE /a"}));
  p.Signal(SIGINT);
  EXPECT_EQ(p.Wait(), 0) << p.stderr_text();
}

TEST_F(EventsFollow, ConsumerRestartingWithItsLastIdGetsExactlyTheEventsAfterIt) {
  uint64_t last_seen = 0;
  {
    Subprocess p({FathomBinary(), "events", "--store", db_, "--follow", "--format", "json"});
    auto ids = JsonIds(p.ReadLines(12));
    ASSERT_EQ(ids, IdRange(1, 12));
    last_seen = ids.back();
    p.Signal(SIGTERM);
    EXPECT_EQ(p.Wait(), 0) << p.stderr_text();
  }
  AppendMore({"/watched/h1", "/watched/h2", "/watched/h3"});  // while no consumer runs
  Subprocess p({FathomBinary(), "events", "--store", db_, "--follow", "--format", "json", "--since",
                std::to_string(last_seen)});
  EXPECT_EQ(JsonIds(p.ReadLines(3)), IdRange(13, 15));
  AppendMore({"/watched/h4"});
  EXPECT_EQ(JsonIds(p.ReadLines(1)), IdRange(16, 16));
  EXPECT_FALSE(p.ReadLine(300ms).has_value());
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(EventsFollow, FollowWithLimitExitsOnceItPrintedThatMany) {
  Subprocess p({FathomBinary(), "events", "--store", db_, "--since", "11", "--follow",
                "--max-count", "3", "--format", "json"});
  EXPECT_EQ(JsonIds(p.ReadLines(1)), IdRange(12, 12));
  AppendMore({"/watched/i1", "/watched/i2", "/watched/i3"});
  EXPECT_EQ(JsonIds(p.ReadAllLines(10s)), IdRange(13, 14));
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(EventsFollow, FollowerOvertakenByRetentionFailsInsteadOfSkipping) {
  writer_.reset();
  StoreOptions bounded = testing::WriterOptions(db_);
  bounded.max_events = 3;
  auto store = EventStore::Open(bounded);
  ASSERT_TRUE(store.ok());
  Subprocess p({FathomBinary(), "events", "--store", db_, "--follow", "--format", "json"});
  EXPECT_EQ(JsonIds(p.ReadLines(12)), IdRange(1, 12));
  auto batch = testing::MakeBatch(10, 0, "burst");  // ids 13..22; only 20..22 stay
  ASSERT_TRUE(store.value()->Append(batch).ok());
  EXPECT_EQ(p.Wait(), 1);
  EXPECT_NE(p.stderr_text().find("events 13..19 were removed by retention"), std::string::npos)
      << p.stderr_text();
}

}  // namespace
}  // namespace fathom
