// Opening a session: URIs, and what each kind of connection failure tells the user.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <system_error>

#include "catalog/postgres/pg_test_session.h"
#include "support/nats_server.h"
#include "support/postgres_server.h"

namespace fathom::catalog::pg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class PgConnectTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<testing::PostgresServer>(); }
  static void TearDownTestSuite() { server_.reset(); }
  static std::unique_ptr<testing::PostgresServer> server_;
};
std::unique_ptr<testing::PostgresServer> PgConnectTest::server_;

TEST(PgConnect, NothingListeningNamesTheServerAndAsksWhetherItRuns) {
  const std::string port = std::to_string(testing::FreePorts(1)[0]);
  auto session = Session::Open("postgresql://fathom@127.0.0.1:" + port + "/catalog");
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), std::make_error_code(std::errc::connection_aborted));
  EXPECT_THAT(session.status().message(),
              StartsWith("catalog database \"catalog\" on 127.0.0.1:" + port +
                         " as user \"fathom\": connect: no server answers at 127.0.0.1:" + port +
                         ": is the server running? check the host/port in the URI (postgresql: "
                         "connection to server at \"127.0.0.1\", port " + port +
                         " failed: Connection refused"));
}

TEST_F(PgConnectTest, OpensBothUriSchemes) {
  for (const std::string scheme : {"postgresql://", "postgres://"}) {
    auto session = Session::Open(scheme + "fathom@127.0.0.1:" + std::to_string(server_->port()) +
                                 "/" + testing::PostgresServer::kDatabase);
    ASSERT_TRUE(session.ok()) << session.status().message();
    EXPECT_EQ(session->server(), "catalog database \"fathom_test\" on 127.0.0.1:" +
                                     std::to_string(server_->port()) + " as user \"fathom\"");
  }
}

TEST_F(PgConnectTest, MissingDatabaseIsNamedWithTheCommandThatCreatesIt) {
  auto session = Session::Open(server_->Uri("fathom", "no_such_db"));
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(),
              StartsWith("catalog database \"no_such_db\" on 127.0.0.1:" + std::to_string(server_->port()) +
                         " as user \"fathom\": connect: database \"no_such_db\" does not exist: create "
                         "it (createdb -O fathom no_such_db) or fix the database in the URI (postgresql: "));
}

TEST_F(PgConnectTest, MissingUserIsNamed) {
  // Over the unix socket, where every role is trusted: the server looks the role up.
  auto session = Session::Open("postgresql://ghost@/fathom_test?host=" + server_->socket_dir() +
                               "&port=" + std::to_string(server_->port()));
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(),
              HasSubstr(": connect: user \"ghost\" does not exist on the server: create it (createuser) "
                        "or fix the user in the URI (postgresql: "));
}

TEST_F(PgConnectTest, WrongPasswordIsAnAuthenticationFailureThatDoesNotShowThePassword) {
  server_->Exec("CREATE ROLE alice LOGIN PASSWORD 'right-secret'");
  const std::string at = "@127.0.0.1:" + std::to_string(server_->port()) + "/fathom_test";
  auto session = Session::Open("postgresql://alice:wrong-secret" + at);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(),
              StartsWith("catalog database \"fathom_test\" on 127.0.0.1:" + std::to_string(server_->port()) +
                         " as user \"alice\": connect: authentication failed for user \"alice\": check "
                         "the password in the URI, PGPASSWORD or ~/.pgpass (postgresql: "));
  EXPECT_THAT(session.status().message(), Not(HasSubstr("secret")));

  EXPECT_TRUE(Session::Open("postgresql://alice:right-secret" + at).ok());
}

TEST_F(PgConnectTest, NoPasswordWhereOneIsNeededSaysWhereToPutIt) {
  server_->Exec("CREATE ROLE bob LOGIN PASSWORD 'bobs-secret'");
  const std::string uri = server_->Uri("bob", "fathom_test");
  ::unsetenv("PGPASSWORD");
  ::setenv("PGPASSFILE", "/nonexistent/pgpass", 1);
  auto session = Session::Open(uri);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(),
              HasSubstr(": connect: the server wants a password for user \"bob\" and none was given: "
                        "put it in ~/.pgpass, PGPASSWORD or the URI (postgresql: "));

  ::setenv("PGPASSWORD", "bobs-secret", 1);
  auto with_env = Session::Open(uri);
  ::unsetenv("PGPASSWORD");
  ::unsetenv("PGPASSFILE");
  EXPECT_TRUE(with_env.ok()) << with_env.status().message();
}

TEST_F(PgConnectTest, SslRequiredOfAServerWithoutItSaysWhichSettingToChange) {
  auto session = Session::Open(server_->uri() + "?sslmode=require");
  ASSERT_FALSE(session.ok());
  const std::string at = "127.0.0.1:" + std::to_string(server_->port());
  EXPECT_THAT(session.status().message(),
              StartsWith("catalog database \"fathom_test\" on " + at + " as user \"fathom\": connect: the URI "
                         "asks for SSL (sslmode) and the server at " + at + " does not offer it: enable ssl in "
                         "its postgresql.conf, or change sslmode in the URI (postgresql: "));
  EXPECT_TRUE(Session::Open(server_->uri() + "?sslmode=prefer").ok());
}

TEST(PgConnect, UriOfAnotherKindIsRefusedWithTheExpectedForm) {
  auto session = Session::Open("sqlite:/var/lib/fathom/catalog.db");
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "catalog URI: not a PostgreSQL URI (it starts with neither postgresql:// nor "
            "postgres://): write it as postgresql://USER@HOST:PORT/DATABASE");
}

TEST(PgConnect, UnreadableUriIsRefusedWithLibpqsReason) {
  auto session = Session::Open("postgresql://fathom@localhost/catalog?no_such_option=1");
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "catalog URI: libpq cannot read it (invalid URI query parameter: \"no_such_option\"): "
            "write it as postgresql://USER@HOST:PORT/DATABASE[?sslmode=...]");
}

}  // namespace
}  // namespace fathom::catalog::pg
