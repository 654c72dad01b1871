// Webhook endpoints disabled by HTTP 410 Gone, in the outbox: kept across a restart until
// enabled, per rule and URL; and an outbox of schema 2 (before the table existed) refused by a
// reader and brought to schema 3 by a writer, its deliveries kept.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_test_util.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::MakeDelivery;

int64_t UserVersion(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  const int64_t version = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return version;
}

TEST(OutboxEndpointsTest, ADisabledEndpointStaysDisabledAcrossARestartUntilEnabled) {
  fathom::testing::TempDir dir;
  const std::string path = dir / "outbox.db";
  {
    auto outbox = Outbox::Open(path);
    ASSERT_TRUE(outbox.ok()) << outbox.status().message();
    EXPECT_TRUE((*outbox)->DisabledEndpoints()->empty());
    ASSERT_TRUE((*outbox)->DisableEndpoint({"notify", "https://a.example/hook", "HTTP 410", 1000}).ok());
    ASSERT_TRUE((*outbox)->DisableEndpoint({"audit", "https://b.example/x", "HTTP 410", 2000}).ok());
    // Disabled again: the reason and the time are the newest.
    ASSERT_TRUE((*outbox)->DisableEndpoint({"notify", "https://a.example/hook", "HTTP 410: gone", 3000}).ok());
  }
  auto reopened = Outbox::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  Outbox& outbox = **reopened;
  auto all = outbox.DisabledEndpoints();
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].rule, "audit");
  EXPECT_EQ((*all)[1].rule, "notify");
  EXPECT_EQ((*all)[1].url, "https://a.example/hook");
  EXPECT_EQ((*all)[1].reason, "HTTP 410: gone");
  EXPECT_EQ((*all)[1].since_ns, 3000);
  auto one = outbox.DisabledEndpointOf("notify", "https://a.example/hook");
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((**one).reason, "HTTP 410: gone");
  EXPECT_FALSE(outbox.DisabledEndpointOf("notify", "https://a.example/new-hook")->has_value())
      << "an edited URL is another endpoint";
  EXPECT_FALSE(outbox.DisabledEndpointOf("other", "https://a.example/hook")->has_value());
  EXPECT_EQ(outbox.EnableEndpoints("notify").value(), 1u);
  EXPECT_EQ(outbox.EnableEndpoints("notify").value(), 0u);
  EXPECT_FALSE(outbox.DisabledEndpointOf("notify", "https://a.example/hook")->has_value());
  ASSERT_EQ(outbox.DisabledEndpoints()->size(), 1u);
  auto reader = Outbox::Open(path, true);
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE((*reader)->DisableEndpoint({"x", "https://c.example/", "HTTP 410", 1}).ok()) << "read-only";
  EXPECT_EQ((*reader)->DisabledEndpoints()->size(), 1u);
}

TEST(OutboxEndpointsTest, ASchema2OutboxIsBroughtToSchema3ByAWriterItsDeliveriesKept) {
  fathom::testing::TempDir dir;
  const std::string path = dir / "outbox.db";
  {
    auto outbox = Outbox::Open(path);
    ASSERT_TRUE(outbox.ok());
    const NewDelivery d = MakeDelivery("r", {1}, "/a");
    ASSERT_TRUE((*outbox)->Record({&d, 1}, "runner", 1).ok());
  }
  EXPECT_EQ(UserVersion(path), 3);
  // As fathom before schema 3 wrote it.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE disabled_endpoints; PRAGMA user_version = 2", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto reader = Outbox::Open(path, true);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().message(), "rules outbox " + path +
                                           " was written by an older fathom (schema 2): start `fathom rules run` "
                                           "with it once to bring it up to date");
  EXPECT_EQ(UserVersion(path), 2) << "a reader changes nothing";
  auto writer = Outbox::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  EXPECT_EQ(UserVersion(path), 3);
  EXPECT_EQ((*writer)->Cursor("runner").value(), 1u);
  EXPECT_EQ((*writer)->Counts()->at(0).pending, 1u);
  EXPECT_TRUE((*writer)->DisabledEndpoints()->empty());
  ASSERT_TRUE((*writer)->DisableEndpoint({"r", "https://a.example/", "HTTP 410", 5}).ok());
  EXPECT_TRUE((*writer)->DisabledEndpointOf("r", "https://a.example/")->has_value());
}

}  // namespace
}  // namespace fathom::rules
