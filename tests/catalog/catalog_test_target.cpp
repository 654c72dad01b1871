#include "catalog/catalog_test_target.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <memory>

#ifdef FATHOM_CATALOG_TEST_POSTGRES
#include "support/postgres_server.h"
#endif

namespace fathom::testing {

std::string NewSqliteUri(const TempDir& dir, const std::string& name) { return dir / (name + ".db"); }

#ifdef FATHOM_CATALOG_TEST_POSTGRES

namespace {

PostgresServer& Server() {
  static std::unique_ptr<PostgresServer> server = std::make_unique<PostgresServer>();
  return *server;
}

std::map<std::string, std::string>& DatabaseOf() {  // URI -> database
  static std::map<std::string, std::string> databases;
  return databases;
}

}  // namespace

const char* TargetBackend() { return "postgresql"; }

std::string NewCatalogUri(const TempDir&, const std::string& name) {
  static int made = 0;
  const std::string database = "catalog_" + std::to_string(++made) + "_" + name;
  Server().Exec("CREATE DATABASE " + database + " STRATEGY FILE_COPY", "postgres");
  std::string uri = Server().Uri(PostgresServer::kSuperuser, database);
  DatabaseOf()[uri] = database;
  return uri;
}

void ExecOnCatalog(const std::string& uri, const std::string& sql) {
  auto at = DatabaseOf().find(uri);
  ASSERT_NE(at, DatabaseOf().end()) << uri << " is not a test catalog";
  try {
    Server().Exec(sql, at->second);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

#else

const char* TargetBackend() { return "sqlite"; }

std::string NewCatalogUri(const TempDir& dir, const std::string& name) { return NewSqliteUri(dir, name); }

void ExecOnCatalog(const std::string& uri, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(uri.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

#endif

}  // namespace fathom::testing
