// Transactions and bulk COPY through the PostgreSQL layer: what is rolled back leaves
// nothing, a failed transaction is never reported committed, COPY stores every row exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catalog/postgres/pg_test_session.h"
#include "support/postgres_server.h"

namespace fathom::catalog::pg {
namespace {

using ::testing::HasSubstr;

class PgTransactionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<testing::PostgresServer>(); }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    server_->Exec("DROP TABLE IF EXISTS names; CREATE TABLE names (parent bigint, name bytea, id bigint, "
                  "PRIMARY KEY (parent, name))");
    session_ = OpenOrFail(server_->uri());
    ASSERT_TRUE(session_.has_value());
    auto insert = session_->Prepare("INSERT INTO names VALUES ($1, $2, $3)", {Type::kInt, Type::kBytes, Type::kInt},
                                    "insert a name");
    ASSERT_TRUE(insert.ok()) << insert.status().message();
    insert_ = *insert;
  }

  Status Insert(int64_t parent, std::string_view name, int64_t id) {
    return session_->Run(insert_, {Param::Int(parent), Param::Bytes(name), Param::Int(id)}).status();
  }

  static std::unique_ptr<testing::PostgresServer> server_;
  std::optional<Session> session_;
  Statement insert_;
};
std::unique_ptr<testing::PostgresServer> PgTransactionTest::server_;

TEST_F(PgTransactionTest, RolledBackTransactionLeavesNothing) {
  ASSERT_TRUE(session_->Begin().ok());
  for (int64_t i = 1; i <= 10; ++i) ASSERT_TRUE(Insert(1, "f" + std::to_string(i), i).ok());
  EXPECT_EQ(CountRows(*session_, "names"), 10);  // seen inside the transaction
  ASSERT_TRUE(session_->Rollback().ok());
  EXPECT_EQ(CountRows(*session_, "names"), 0);
  auto other = OpenOrFail(server_->uri());
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(CountRows(*other, "names"), 0);
}

TEST_F(PgTransactionTest, CommittedTransactionIsSeenByAnotherSessionOnlyAfterCommit) {
  auto other = OpenOrFail(server_->uri());
  ASSERT_TRUE(other.has_value());
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(1, "a", 2).ok());
  ASSERT_TRUE(Insert(1, "b", 3).ok());
  EXPECT_EQ(CountRows(*other, "names"), 0);
  ASSERT_TRUE(session_->Commit().ok());
  EXPECT_EQ(CountRows(*other, "names"), 2);
}

TEST_F(PgTransactionTest, CommitAfterAFailedStatementReportsTheRollback) {
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(1, "a", 2).ok());
  Status duplicate = Insert(1, "a", 3);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_THAT(duplicate.message(), HasSubstr(": insert a name: duplicate key value violates unique constraint "
                                             "\"names_pkey\" (SQLSTATE 23505)"));
  Status commit = session_->Commit();
  ASSERT_FALSE(commit.ok());
  EXPECT_EQ(commit.message(), session_->server() + ": COMMIT: a statement of the transaction had failed, so the "
                                                   "server rolled it back: nothing of it was committed");
  EXPECT_EQ(CountRows(*session_, "names"), 0);
}

TEST_F(PgTransactionTest, CommitRefusedAtCommitTimeIsAnErrorAndLeavesNothing) {
  server_->Exec("ALTER TABLE names ADD CONSTRAINT one_id UNIQUE (id) DEFERRABLE INITIALLY DEFERRED");
  ASSERT_TRUE(session_->Begin().ok());
  ASSERT_TRUE(Insert(1, "a", 7).ok());
  ASSERT_TRUE(Insert(1, "b", 7).ok());  // checked at COMMIT
  Status commit = session_->Commit();
  ASSERT_FALSE(commit.ok());
  EXPECT_THAT(commit.message(),
              HasSubstr(": COMMIT (the transaction was rolled back, nothing of it was committed): duplicate key "
                        "value violates unique constraint \"one_id\" (SQLSTATE 23505)"));
  EXPECT_EQ(CountRows(*session_, "names"), 0);
}

TEST_F(PgTransactionTest, BeginInsideATransactionAndCommitOutsideOneAreRefused) {
  Status commit = session_->Commit();
  EXPECT_EQ(commit.message(), session_->server() + ": COMMIT: no transaction is open (BEGIN first)");
  ASSERT_TRUE(session_->Begin().ok());
  Status again = session_->Begin();
  EXPECT_EQ(again.message(),
            session_->server() + ": BEGIN: a transaction is already open: commit or roll it back first");
  EXPECT_TRUE(session_->Rollback().ok());
  EXPECT_TRUE(session_->Rollback().ok());  // nothing open: nothing to do
}

// Parameters for inserting names 0..n-1 (parent 1, name "n<i>", id i), and their names;
// `same_names` gives name j to entry i for each {i, j}.
struct NameRuns {
  explicit NameRuns(int64_t n, std::pair<int64_t, int64_t> same_names = {0, 0}) {
    for (int64_t i = 0; i < n; ++i) names.push_back("n" + std::to_string(i));
    names[static_cast<size_t>(same_names.first)] = names[static_cast<size_t>(same_names.second)];
    for (int64_t i = 0; i < n; ++i) {
      params.push_back(Param::Int(1));
      params.push_back(Param::Bytes(names[static_cast<size_t>(i)]));
      params.push_back(Param::Int(i));
    }
  }
  std::vector<std::string> names;
  std::vector<Param> params;
};

TEST_F(PgTransactionTest, RunEachRunsEveryGroupAcrossRoundTrips) {
  NameRuns runs(2500);  // three round trips of up to 1000
  auto affected = session_->RunEach(insert_, runs.params);
  ASSERT_TRUE(affected.ok()) << affected.status().message();
  EXPECT_EQ(*affected, 2500);
  auto sums = session_->Query("SELECT count(*), sum(id)::bigint, count(DISTINCT name) FROM names", {}, "sum");
  ASSERT_TRUE(sums.ok()) << sums.status().message();
  EXPECT_EQ(sums->Int(0, 0), 2500);
  EXPECT_EQ(sums->Int(0, 1), 2499 * 2500 / 2);
  EXPECT_EQ(sums->Int(0, 2), 2500);
}

TEST_F(PgTransactionTest, RunEachStopsAtTheFirstFailureAndItsTransactionCommitsNothing) {
  NameRuns runs(2500, {1500, 10});  // a duplicate (parent, name) in the second round trip
  ASSERT_TRUE(session_->Begin().ok());
  auto affected = session_->RunEach(insert_, runs.params);
  ASSERT_FALSE(affected.ok());
  EXPECT_EQ(affected.status().message(),
            session_->server() + ": insert a name: duplicate key value violates unique constraint \"names_pkey\" "
                                 "(SQLSTATE 23505)");
  EXPECT_FALSE(session_->Commit().ok());
  EXPECT_EQ(CountRows(*session_, "names"), 0);  // and the session works on
}

TEST_F(PgTransactionTest, RunEachRefusesParametersThatAreNotWholeRuns) {
  NameRuns runs(2);
  runs.params.pop_back();
  auto affected = session_->RunEach(insert_, runs.params);
  ASSERT_FALSE(affected.ok());
  EXPECT_EQ(affected.status().message(),
            session_->server() + ": insert a name: 5 parameters given, the statement takes 3 per run");
  EXPECT_EQ(CountRows(*session_, "names"), 0);
}

TEST_F(PgTransactionTest, CopyStoresEveryRowExactly) {
  CopyRows rows;
  constexpr int64_t kRows = 20000;
  for (int64_t i = 0; i < kRows; ++i) {
    rows.StartRow(3);
    rows.AddInt(i % 100 - 50);
    rows.AddBytes(i == 7 ? std::string("nul\0and\nnewline\xff", 17) : "file-" + std::to_string(i));
    if (i % 1000 == 999) {
      rows.AddNull();
    } else {
      rows.AddInt(i * 1'000'000'007LL);
    }
  }
  EXPECT_EQ(rows.rows(), static_cast<size_t>(kRows));
  auto copied = session_->Copy("COPY names (parent, name, id) FROM STDIN (FORMAT binary)", rows, "copy names");
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ(*copied, kRows);

  auto sums = session_->Query("SELECT count(*), count(id), sum(parent)::bigint, sum(id / 1000000007)::bigint FROM names",
                              {}, "sum the names");
  ASSERT_TRUE(sums.ok()) << sums.status().message();
  EXPECT_EQ(sums->Int(0, 0), kRows);
  EXPECT_EQ(sums->Int(0, 1), kRows - 20);
  int64_t parents = 0, ids = 0;
  for (int64_t i = 0; i < kRows; ++i) {
    parents += i % 100 - 50;
    if (i % 1000 != 999) ids += i;
  }
  EXPECT_EQ(sums->Int(0, 2), parents);
  EXPECT_EQ(sums->Int(0, 3), ids);
  auto seventh = session_->Query("SELECT name FROM names WHERE id = $1", {Param::Int(7 * 1'000'000'007LL)}, "read");
  ASSERT_TRUE(seventh.ok());
  ASSERT_EQ(seventh->size(), 1);
  EXPECT_EQ(seventh->Bytes(0, 0), std::string("nul\0and\nnewline\xff", 17));
}

TEST_F(PgTransactionTest, CopyOfAMismatchedTypeIsRefusedAndStoresNothing) {
  CopyRows rows;
  rows.StartRow(3);
  rows.AddInt(1);
  rows.AddBytes("ok");
  rows.AddInt(2);
  rows.StartRow(3);
  rows.AddBytes("not a bigint");  // into parent (bigint)
  rows.AddBytes("x");
  rows.AddInt(3);
  auto copied = session_->Copy("COPY names (parent, name, id) FROM STDIN (FORMAT binary)", rows, "copy names");
  ASSERT_FALSE(copied.ok());
  EXPECT_THAT(copied.status().message(), HasSubstr(": copy names: "));
  EXPECT_THAT(copied.status().message(), HasSubstr("(SQLSTATE 22P03)"));
  EXPECT_EQ(CountRows(*session_, "names"), 0);
}

TEST_F(PgTransactionTest, CopyInsideATransactionIsUndoneByRollback) {
  CopyRows rows;
  for (int i = 0; i < 100; ++i) {
    rows.StartRow(3);
    rows.AddInt(1);
    rows.AddBytes("n" + std::to_string(i));
    rows.AddInt(i);
  }
  ASSERT_TRUE(session_->Begin().ok());
  auto copied = session_->Copy("COPY names (parent, name, id) FROM STDIN (FORMAT binary)", rows, "copy names");
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ(*copied, 100);
  ASSERT_TRUE(session_->Rollback().ok());
  EXPECT_EQ(CountRows(*session_, "names"), 0);
}

}  // namespace
}  // namespace fathom::catalog::pg
