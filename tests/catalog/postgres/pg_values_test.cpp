// Values through the PostgreSQL layer: bigints and byte names exactly as given, prepared
// statements prepared once, errors naming the statement and its SQLSTATE.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "catalog/postgres/pg_test_session.h"
#include "support/postgres_server.h"

namespace fathom::catalog::pg {
namespace {

using ::testing::HasSubstr;

class PgValuesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<testing::PostgresServer>(); }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    server_->Exec("DROP TABLE IF EXISTS v; CREATE TABLE v (id serial PRIMARY KEY, i bigint, b bytea, t text)");
    session_ = OpenOrFail(server_->uri());
    ASSERT_TRUE(session_.has_value());
  }

  static std::unique_ptr<testing::PostgresServer> server_;
  std::optional<Session> session_;
};
std::unique_ptr<testing::PostgresServer> PgValuesTest::server_;

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

TEST_F(PgValuesTest, Int64RoundTripsExactlyAndTheServerReadsTheSameNumber) {
  const std::vector<int64_t> values = {0, 1, -1, std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(), (int64_t{1} << 53) + 1,
                                       -1234567890123456789, 4294967296};
  auto insert = session_->Prepare("INSERT INTO v (i) VALUES ($1)", {Type::kInt}, "insert an integer");
  ASSERT_TRUE(insert.ok()) << insert.status().message();
  for (int64_t value : values) {
    auto done = session_->Run(*insert, {Param::Int(value)});
    ASSERT_TRUE(done.ok()) << done.status().message();
    EXPECT_EQ(done->affected(), 1);
  }
  auto rows = session_->Query("SELECT i, i::text FROM v ORDER BY id", {}, "read the integers");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), static_cast<int>(values.size()));
  for (int r = 0; r < rows->size(); ++r) {
    EXPECT_EQ(rows->Int(r, 0), values[static_cast<size_t>(r)]);
    EXPECT_EQ(rows->Bytes(r, 1), std::to_string(values[static_cast<size_t>(r)]));
  }
}

TEST_F(PgValuesTest, IntReadsSmallintIntegerAndNull) {
  auto rows = session_->Query("SELECT (-7)::smallint, (-2000000000)::integer, NULL::bigint", {}, "read integers");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->Int(0, 0), -7);
  EXPECT_EQ(rows->Int(0, 1), -2000000000);
  EXPECT_TRUE(rows->IsNull(0, 2));
  EXPECT_EQ(rows->Int(0, 2), 0);
}

TEST_F(PgValuesTest, ArbitraryByteNamesRoundTripExactly) {
  std::string every_byte;
  for (int c = 1; c < 256; ++c) every_byte += static_cast<char>(c);
  const std::vector<std::string> names = {std::string("nul\0inside", 10), "new\nline", "\xff\xfe\x80not-utf8",
                                          "", "quote'\"back\\slash\t", std::string(1, '\0'), every_byte,
                                          "caf\xc3\xa9"};
  auto insert = session_->Prepare("INSERT INTO v (b) VALUES ($1)", {Type::kBytes}, "insert a name");
  ASSERT_TRUE(insert.ok()) << insert.status().message();
  for (const std::string& name : names) ASSERT_TRUE(session_->Run(*insert, {Param::Bytes(name)}).ok());

  auto rows = session_->Query("SELECT b, length(b), encode(b, 'hex') FROM v ORDER BY id", {}, "read the names");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), static_cast<int>(names.size()));
  for (int r = 0; r < rows->size(); ++r) {
    const std::string& name = names[static_cast<size_t>(r)];
    EXPECT_EQ(rows->Bytes(r, 0), name) << "row " << r;
    EXPECT_FALSE(rows->IsNull(r, 0));
    EXPECT_EQ(rows->Int(r, 1), static_cast<int64_t>(name.size()));
    EXPECT_EQ(rows->Bytes(r, 2), Hex(name));
  }
}

TEST_F(PgValuesTest, NameLooksUpByItsBytes) {
  const std::string name("a\nb\0c\xff", 6);
  ASSERT_TRUE(session_->Query("INSERT INTO v (i, b) VALUES ($1, $2)", {Param::Int(42), Param::Bytes(name)}, "insert").ok());
  ASSERT_TRUE(session_->Query("INSERT INTO v (i, b) VALUES ($1, $2)", {Param::Int(7), Param::Bytes("a\nb")}, "insert").ok());
  auto rows = session_->Query("SELECT i FROM v WHERE b = $1", {Param::Bytes(name)}, "look the name up");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1);
  EXPECT_EQ(rows->Int(0, 0), 42);
}

TEST_F(PgValuesTest, TextRoundTripsValidUtf8AndRefusesOtherBytes) {
  auto ok = session_->Query("INSERT INTO v (t) VALUES ($1) RETURNING t", {Param::Text("caf\xc3\xa9 \xe2\x9c\x93")}, "insert a text");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->Bytes(0, 0), "caf\xc3\xa9 \xe2\x9c\x93");

  auto bad = session_->Query("INSERT INTO v (t) VALUES ($1)", {Param::Text("\xff\xfe")}, "insert a text");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr(": insert a text: invalid byte sequence for encoding \"UTF8\": 0xff (SQLSTATE 22021)"));
}

TEST_F(PgValuesTest, NullParametersStoreNull) {
  ASSERT_TRUE(session_->Query("INSERT INTO v (i, b) VALUES ($1, $2)", {Param::Null(Type::kInt), Param::Null(Type::kBytes)}, "insert nulls").ok());
  auto rows = session_->Query("SELECT i IS NULL, b IS NULL FROM v", {}, "read");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->Bytes(0, 0), std::string(1, '\1'));  // binary boolean true
  EXPECT_EQ(rows->Bytes(0, 1), std::string(1, '\1'));
}

TEST_F(PgValuesTest, PreparedStatementIsPreparedOnceAndReused) {
  auto insert = session_->Prepare("INSERT INTO v (i) VALUES ($1)", {Type::kInt}, "insert an integer");
  ASSERT_TRUE(insert.ok()) << insert.status().message();
  for (int64_t i = 0; i < 100; ++i) ASSERT_TRUE(session_->Run(*insert, {Param::Int(i)}).ok());
  auto prepared = session_->Query("SELECT count(*) FROM pg_prepared_statements", {}, "count prepared statements");
  ASSERT_TRUE(prepared.ok());
  EXPECT_EQ(prepared->Int(0, 0), 1);
  EXPECT_EQ(CountRows(*session_, "v"), 100);
}

TEST_F(PgValuesTest, ParametersUnlikeThePreparedTypesAreRefusedUnsent) {
  auto insert = session_->Prepare("INSERT INTO v (i, b) VALUES ($1, $2)", {Type::kInt, Type::kBytes}, "insert a row");
  ASSERT_TRUE(insert.ok()) << insert.status().message();
  auto swapped = session_->Run(*insert, {Param::Bytes("x"), Param::Int(1)});
  ASSERT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.status().message(),
            session_->server() + ": insert a row: parameter $1 has another type than the statement was prepared with");
  auto short_by_one = session_->Run(*insert, {Param::Int(1)});
  ASSERT_FALSE(short_by_one.ok());
  EXPECT_EQ(short_by_one.status().message(),
            session_->server() + ": insert a row: 1 parameters given, the statement takes 2");
  EXPECT_EQ(CountRows(*session_, "v"), 0);
}

TEST_F(PgValuesTest, SqlErrorNamesTheStatementAndItsSqlstate) {
  auto rows = session_->Query("SELECT * FROM no_such_table", {}, "read the missing table");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(),
            session_->server() + ": read the missing table: relation \"no_such_table\" does not exist (SQLSTATE 42P01)");
  auto prepared = session_->Prepare("SELECT * FROM no_such_table", {}, "read the missing table");
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().message(),
            session_->server() + ": prepare the statement to read the missing table: relation \"no_such_table\" "
                                 "does not exist (SQLSTATE 42P01)");
}

}  // namespace
}  // namespace fathom::catalog::pg
