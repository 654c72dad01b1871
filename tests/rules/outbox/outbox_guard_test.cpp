// The outbox's part in loops and storms, on real SQLite files: deliveries recorded with their
// cascade depth, waiting for a rate limit, or dead at once; rules paused and resumed across
// a reopen; a schema 1 file brought up to date by a writer, and refused by a reader until then.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_test_util.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::IdOf;
using testing::MakeDelivery;

constexpr int64_t kSecond = 1'000'000'000;

std::unique_ptr<Outbox> OpenOrDie(const std::string& path) {
  auto outbox = Outbox::Open(path);
  EXPECT_TRUE(outbox.ok()) << outbox.status().message();
  return outbox.ok() ? std::move(outbox).value() : nullptr;
}

TEST(OutboxGuardTest, DepthWaitingAndDeadAreRecordedAsGivenAndLeasedAccordingly) {
  ::fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "rules.db");
  ASSERT_NE(outbox, nullptr);
  NewDelivery deep = MakeDelivery("r", {1}, "/a", 10 * kSecond);
  deep.depth = 2;
  NewDelivery later = MakeDelivery("r", {2}, "/b", 10 * kSecond);
  later.not_before_ns = 15 * kSecond;
  NewDelivery dead = MakeDelivery("r", {3}, "/c", 10 * kSecond);
  dead.depth = 4;
  dead.dead_reason = "past max_cascade";
  ASSERT_TRUE(outbox->Record(std::vector<NewDelivery>{deep, later, dead}, "rules", 3).ok());

  auto got = outbox->Get(IdOf(deep));
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->depth, 2);
  EXPECT_EQ((*got)->state, DeliveryState::kPending);
  got = outbox->Get(IdOf(later));
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->state, DeliveryState::kWaiting);
  EXPECT_EQ((*got)->next_ns, 15 * kSecond);
  EXPECT_EQ((*got)->attempts, 0);
  got = outbox->Get(IdOf(dead));
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->state, DeliveryState::kDead);
  EXPECT_EQ((*got)->last_result, "past max_cascade");
  EXPECT_EQ((*got)->depth, 4);

  auto early = outbox->Lease(10, 14 * kSecond, 100 * kSecond);
  ASSERT_TRUE(early.ok());
  ASSERT_EQ(early->size(), 1u);
  EXPECT_EQ(early->front().id, IdOf(deep));
  EXPECT_EQ(early->front().depth, 2);
  auto on_time = outbox->Lease(10, 15 * kSecond, 100 * kSecond);
  ASSERT_TRUE(on_time.ok());
  ASSERT_EQ(on_time->size(), 1u);
  EXPECT_EQ(on_time->front().id, IdOf(later));
  EXPECT_EQ(on_time->front().attempts, 1);
  // The dead one runs once replayed.
  ASSERT_TRUE(outbox->Replay(IdOf(dead)).ok());
  auto replayed = outbox->Lease(10, 16 * kSecond, 100 * kSecond);
  ASSERT_TRUE(replayed.ok());
  ASSERT_EQ(replayed->size(), 1u);
  EXPECT_EQ(replayed->front().id, IdOf(dead));
}

TEST(OutboxGuardTest, PausedRulesKeepTheirFirstReasonAndSurviveAReopenUntilResumed) {
  ::fathom::testing::TempDir dir;
  {
    auto outbox = OpenOrDie(dir / "rules.db");
    ASSERT_NE(outbox, nullptr);
    ASSERT_TRUE(outbox->Pause("b", "breaker", 5).ok());
    ASSERT_TRUE(outbox->Pause("a", "first", 7).ok());
    ASSERT_TRUE(outbox->Pause("a", "second", 9).ok());
  }
  auto reader = Outbox::Open(dir / "rules.db", true);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  auto paused = (*reader)->Paused();
  ASSERT_TRUE(paused.ok());
  ASSERT_EQ(paused->size(), 2u);
  EXPECT_EQ((*paused)[0].rule, "a");
  EXPECT_EQ((*paused)[0].reason, "first");
  EXPECT_EQ((*paused)[0].since_ns, 7);
  EXPECT_EQ((*paused)[1].rule, "b");
  EXPECT_FALSE((*reader)->Resume("a").ok());  // read-only

  auto outbox = OpenOrDie(dir / "rules.db");
  auto was = outbox->Resume("a");
  ASSERT_TRUE(was.ok());
  EXPECT_TRUE(*was);
  was = outbox->Resume("a");
  ASSERT_TRUE(was.ok());
  EXPECT_FALSE(*was);
  paused = outbox->Paused();
  ASSERT_TRUE(paused.ok());
  ASSERT_EQ(paused->size(), 1u);
  EXPECT_EQ((*paused)[0].rule, "b");
}

TEST(OutboxGuardTest, ASchemaOneOutboxIsBroughtUpToDateByAWriterKeepingItsDeliveries) {
  ::fathom::testing::TempDir dir;
  const std::string path = dir / "old.db";
  {
    // The tables as schema 1 made them, with one delivery.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* v1 =
        "CREATE TABLE deliveries(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, rule TEXT NOT NULL,"
        " rule_version TEXT NOT NULL, path BLOB NOT NULL, payload TEXT NOT NULL, event_ids TEXT NOT NULL,"
        " last_event INTEGER NOT NULL, state INTEGER NOT NULL, attempts INTEGER NOT NULL,"
        " created INTEGER NOT NULL, age_from INTEGER, next INTEGER NOT NULL, lease_until INTEGER NOT NULL,"
        " finished INTEGER NOT NULL, last_result TEXT NOT NULL);"
        "CREATE INDEX deliveries_open ON deliveries(seq) WHERE state < 3;"
        "CREATE INDEX deliveries_open_path ON deliveries(path, seq) WHERE state < 3;"
        "CREATE INDEX deliveries_rule ON deliveries(rule, state, seq);"
        "CREATE INDEX deliveries_done ON deliveries(finished) WHERE state = 3;"
        "CREATE TABLE cursors(consumer TEXT PRIMARY KEY, event_id INTEGER NOT NULL) WITHOUT ROWID;"
        "INSERT INTO deliveries VALUES(1, 'fd_0', 'r', 'v', '/a', '{}', '7', 7, 0, 0, 5, 5, 0, 0, 0, '');"
        "INSERT INTO cursors VALUES('rules', 7);"
        "PRAGMA application_id = 1179599448; PRAGMA user_version = 1;";
    ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  auto reader = Outbox::Open(path, true);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().message(), "rules outbox " + path +
                                           " was written by an older fathom (schema 1): start `fathom rules run` "
                                           "with it once to bring it up to date");
  auto outbox = OpenOrDie(path);
  ASSERT_NE(outbox, nullptr);
  auto cursor = outbox->Cursor("rules");
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(*cursor, 7u);
  auto got = outbox->Get("fd_0");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->depth, 0);
  EXPECT_EQ((*got)->event_ids, std::vector<uint64_t>{7});
  ASSERT_TRUE(outbox->Pause("r", "x", 1).ok());
  outbox.reset();
  EXPECT_TRUE(Outbox::Open(path, true).ok());
}

}  // namespace
}  // namespace fathom::rules
