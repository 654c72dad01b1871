// A server that goes away and comes back: the failing call says so, nothing is reported
// committed that was not, and the next call connects again once the server is back. The
// tests share a server, which each one stops and starts again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "catalog/postgres/pg_test_session.h"
#include "support/postgres_server.h"

namespace fathom::catalog::pg {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Quick retries: a test waits for them while the server is down.
SessionOptions QuickRetries() {
  SessionOptions options;
  options.reconnect_attempts = 3;
  options.first_pause = std::chrono::milliseconds(10);
  return options;
}

class PgReconnectTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<testing::PostgresServer>(); }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    if (!server_->running()) server_->Start();  // a failed test may have left it stopped
    server_->Exec("DROP TABLE IF EXISTS names; DROP FUNCTION IF EXISTS slow_commit CASCADE; "
                  "CREATE TABLE names (id bigint PRIMARY KEY)");
    session_ = OpenOrFail(server_->uri(), QuickRetries());
    ASSERT_TRUE(session_.has_value());
  }
  Status Insert(int64_t id) {
    return session_->Query("INSERT INTO names VALUES ($1)", {Param::Int(id)}, "insert a name").status();
  }
  int64_t CountOnNewSession() {
    auto fresh = OpenOrFail(server_->uri());
    return fresh.has_value() ? CountRows(*fresh, "names") : -1;
  }

  static std::unique_ptr<testing::PostgresServer> server_;
  std::optional<Session> session_;
};
std::unique_ptr<testing::PostgresServer> PgReconnectTest::server_;

const std::error_code kLost = std::make_error_code(std::errc::connection_aborted);

TEST_F(PgReconnectTest, ServerStoppedBetweenStatementsGivesAClearErrorAndTheNextCallReconnectsOnceItIsBack) {
  ASSERT_TRUE(Insert(1).ok());
  server_->Stop();

  Status gone = Insert(2);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.code(), kLost);
  EXPECT_THAT(gone.message(),
              StartsWith(session_->server() + ": insert a name: the connection to the server was lost (is the "
                                              "server running?): whether the statement took effect is unknown; "
                                              "the next call connects again (postgresql: "));

  const std::string port = std::to_string(server_->port());
  const auto start = std::chrono::steady_clock::now();
  Status down = Insert(3);
  const auto spent = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.code(), kLost);
  EXPECT_THAT(down.message(), StartsWith(session_->server() + ": insert a name: no server answers at 127.0.0.1:" +
                                         port + ": is the server running? check the host/port in the URI"));
  EXPECT_THAT(down.message(), HasSubstr("; gave up reconnecting after 3 tries over "));
  EXPECT_LT(spent, std::chrono::seconds(5));  // pauses of 10 and 20 ms, and refused connections

  server_->Start();
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(4).ok());
  ASSERT_TRUE(session_->Commit().ok());
  EXPECT_EQ(CountOnNewSession(), 2);  // 1 and 4
}

TEST_F(PgReconnectTest, PreparedStatementsArePreparedAgainOnTheNewConnection) {
  auto insert = session_->Prepare("INSERT INTO names VALUES ($1)", {Type::kInt}, "insert a name");
  ASSERT_TRUE(insert.ok()) << insert.status().message();
  ASSERT_TRUE(session_->Run(*insert, {Param::Int(1)}).ok());
  server_->Stop();
  server_->Start();

  auto stale = session_->Run(*insert, {Param::Int(2)});  // on the connection the restart broke
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), kLost);
  auto again = session_->Run(*insert, {Param::Int(3)});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(CountOnNewSession(), 2);  // 1 and 3
}

TEST_F(PgReconnectTest, PipelinedRunsOnAConnectionTheServerClosedFailAndTheNextCallReconnects) {
  auto insert = session_->Prepare("INSERT INTO names VALUES ($1)", {Type::kInt}, "insert a name");
  ASSERT_TRUE(insert.ok()) << insert.status().message();
  std::vector<Param> ids;
  for (int64_t i = 0; i < 1500; ++i) ids.push_back(Param::Int(i));
  server_->Stop();
  server_->Start();

  auto stale = session_->RunEach(*insert, ids);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), kLost);
  EXPECT_THAT(stale.status().message(),
              StartsWith(session_->server() + ": insert a name: the connection to the server was lost"));
  auto again = session_->RunEach(*insert, ids);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, 1500);
  EXPECT_EQ(CountOnNewSession(), 1500);
}

TEST_F(PgReconnectTest, TransactionLostWithTheServerIsRefusedUntilRolledBack) {
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(1).ok());
  server_->Kill();
  server_->Start();

  Status lost = Insert(2);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.code(), kLost);
  EXPECT_THAT(lost.message(),
              StartsWith(session_->server() + ": insert a name: the connection to the server was lost (is the "
                                              "server running?): the transaction in progress is lost (nothing of "
                                              "it was committed): roll it back and run it again (postgresql: "));
  // The rest of the transaction must not run on a new connection outside it.
  Status refused = Insert(3);
  EXPECT_EQ(refused.message(), session_->server() + ": insert a name: the transaction in progress was lost with "
                                                    "the connection to the server (nothing of it was committed): "
                                                    "roll it back and run it again");
  Status commit = session_->Commit();
  EXPECT_EQ(commit.message(), session_->server() + ": COMMIT: the transaction was lost with the connection to the "
                                                   "server before COMMIT (nothing of it was committed): roll it back "
                                                   "and run it again");
  EXPECT_EQ(commit.code(), kLost);
  EXPECT_EQ(CountOnNewSession(), 0);

  ASSERT_TRUE(session_->Rollback().ok());
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(1).ok());
  ASSERT_TRUE(Insert(2).ok());
  ASSERT_TRUE(session_->Commit().ok());
  EXPECT_EQ(CountOnNewSession(), 2);
}

TEST_F(PgReconnectTest, CommitInterruptedByTheServerDyingIsNeverReportedAsSuccess) {
  // A deferred trigger holds COMMIT in the server until the server is killed.
  server_->Exec(
      "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(60); "
      "RETURN NULL; END $$; "
      "CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON names DEFERRABLE INITIALLY DEFERRED "
      "FOR EACH ROW EXECUTE FUNCTION slow_commit()");
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(1).ok());
  Status commit;
  std::thread committer([&] { commit = session_->Commit(); });

  auto watcher = OpenOrFail(server_->uri());
  ASSERT_TRUE(watcher.has_value());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int64_t sleeping = 0;
  while (sleeping == 0 && std::chrono::steady_clock::now() < deadline) {
    auto rows = watcher->Query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'", {},
                               "find the COMMIT in progress");
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    sleeping = rows->Int(0, 0);
    if (sleeping == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(sleeping, 1);
  server_->Kill();
  committer.join();

  ASSERT_FALSE(commit.ok());
  EXPECT_EQ(commit.code(), kLost);
  EXPECT_THAT(commit.message(),
              StartsWith(session_->server() + ": COMMIT: the connection to the server was lost (is the server "
                                              "running?): whether the transaction was committed is unknown (the "
                                              "server may have committed it before the connection broke): check "
                                              "before running it again (postgresql: "));
  server_->Start();
  EXPECT_EQ(CountOnNewSession(), 0);
  ASSERT_TRUE(session_->Rollback().ok());
  EXPECT_EQ(CountRows(*session_, "names"), 0);  // the session connects again
}

}  // namespace
}  // namespace fathom::catalog::pg
