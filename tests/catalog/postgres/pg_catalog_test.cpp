// The catalog on PostgreSQL, where it differs from SQLite: what a database must hold to be
// opened as a catalog (nothing, or a catalog of this or an older schema version), a read-only
// open that refuses writes (the catalog's own check, and the server's), one writer at a time,
// file names of any bytes, passwords kept out of messages. The catalog's rules on PostgreSQL
// are tested by catalog_pg_test and catalog_model_pg_test.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "catalog/catalog_backend.h"
#include "catalog/catalog_test_util.h"
#include "catalog/freshness.h"
#include "catalog/postgres/pg_backend.h"
#include "catalog/postgres/pg_schema.h"
#include "catalog/postgres/pg_test_session.h"
#include "support/postgres_server.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class PgCatalogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<testing::PostgresServer>(); }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    static int made = 0;
    database_ = "pg_catalog_" + std::to_string(++made);
    server_->Exec("CREATE DATABASE " + database_ + " STRATEGY FILE_COPY", "postgres");
    uri_ = server_->Uri(testing::PostgresServer::kSuperuser, database_);
  }

  std::string OpenError(bool read_only) {
    CatalogOptions options;
    options.uri = uri_;
    options.read_only = read_only;
    auto opened = Catalog::Open(options);
    EXPECT_FALSE(opened.ok()) << uri_ << " opened";
    return opened.ok() ? "" : opened.status().message();
  }
  int64_t Tables() {
    auto session = pg::OpenOrFail(uri_);
    if (!session) return -1;
    return pg::CountRows(*session, "pg_tables WHERE schemaname = 'public'");
  }
  // A catalog holding /r with the file f.
  void MakeCatalog() {
    auto catalog = testing::OpenCatalogOrDie(uri_);
    ASSERT_NE(catalog, nullptr);
    auto b = FATHOM_TEST_VALUE(catalog->Begin());
    EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(NowNs())));
    FATHOM_TEST_VALUE(b->Put(r, "f", FileAttrs(2, 10), At(NowNs())));
    ASSERT_TRUE(b->Commit().ok());
  }

  static std::unique_ptr<testing::PostgresServer> server_;
  std::string database_;
  std::string uri_;
};
std::unique_ptr<testing::PostgresServer> PgCatalogTest::server_;

TEST_F(PgCatalogTest, EmptyDatabaseBecomesACatalogThatOpensAgain) {
  ASSERT_NO_FATAL_FAILURE(MakeCatalog());
  EXPECT_EQ(Tables(), 9);
  auto catalog = testing::OpenCatalogOrDie(uri_, true);
  ASSERT_NE(catalog, nullptr);
  CatalogInfo info = FATHOM_TEST_VALUE(catalog->Info());
  EXPECT_EQ(info.backend, "postgresql");
  EXPECT_EQ(info.schema_version, 1);
  EXPECT_EQ(info.entries, 2u);
  EXPECT_GT(info.bytes, 0);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog->Stat("/r/f"))->attrs, FileAttrs(2, 10));
}

TEST_F(PgCatalogTest, ReadOnlyOpenRefusesWritesWithAClearMessage) {
  ASSERT_NO_FATAL_FAILURE(MakeCatalog());
  auto catalog = testing::OpenCatalogOrDie(uri_, true);
  ASSERT_NE(catalog, nullptr);
  auto batch = catalog->Begin();
  ASSERT_FALSE(batch.ok());
  EXPECT_TRUE(Contains(batch.status().message(), "was opened read-only, so it cannot be changed"))
      << batch.status().message();
  EXPECT_FALSE(catalog->BeginScan("/r", false).ok());
  auto repair = catalog->Recount(true);
  ASSERT_FALSE(repair.ok());
  EXPECT_TRUE(Contains(repair.status().message(), "cannot repair")) << repair.status().message();
  EXPECT_TRUE(FATHOM_TEST_VALUE(catalog->Recount(false)).ok());

  // Below the catalog's check, the server refuses the read-only session's writes too.
  auto backend = FATHOM_TEST_VALUE(OpenPostgresBackend(uri_, true));
  Status begin = backend->BeginWrite();
  ASSERT_FALSE(begin.ok());
  EXPECT_TRUE(Contains(begin.message(), "opened read-only")) << begin.message();
  Status write = backend->SetLastEntryId(1000);
  ASSERT_FALSE(write.ok());
  EXPECT_TRUE(Contains(write.message(), "read-only transaction")) << write.message();
  EXPECT_EQ(FATHOM_TEST_VALUE(backend->LastEntryId()), 2);
}

TEST_F(PgCatalogTest, MissingCatalogOpenedReadOnlyIsNotCreated) {
  std::string error = OpenError(true);
  EXPECT_TRUE(Contains(error, "no catalog in catalog database \"" + database_ + "\"")) << error;
  EXPECT_TRUE(Contains(error, "create it with a scan first")) << error;
  EXPECT_EQ(Tables(), 0);
}

TEST_F(PgCatalogTest, AnotherApplicationsDatabaseIsRefusedAndLeftUntouched) {
  server_->Exec("CREATE TABLE t(x int); INSERT INTO t VALUES(1)", database_);
  std::string error = OpenError(false);
  EXPECT_TRUE(Contains(error, "is not a fathom catalog")) << error;
  EXPECT_TRUE(Contains(error, "tables of another application")) << error;
  EXPECT_TRUE(Contains(OpenError(true), "is not a fathom catalog"));
  EXPECT_EQ(Tables(), 1);
  server_->Exec("DROP TABLE t; CREATE TABLE meta(key text, value bigint)", database_);
  EXPECT_TRUE(Contains(OpenError(false), "is not a fathom catalog"));
}

TEST_F(PgCatalogTest, CatalogOfANewerSchemaIsRefusedNamingBothVersions) {
  ASSERT_NO_FATAL_FAILURE(MakeCatalog());
  server_->Exec("UPDATE meta SET value = 99 WHERE key = 'schema_version'", database_);
  for (bool read_only : {false, true}) {
    std::string error = OpenError(read_only);
    EXPECT_TRUE(Contains(error, "schema version 99, newer than this fathom understands (1)")) << error;
    EXPECT_TRUE(Contains(error, "use a newer fathom")) << error;
  }
}

TEST_F(PgCatalogTest, SecondWriterWaitsUntilTheFirstCommits) {
  ASSERT_NO_FATAL_FAILURE(MakeCatalog());
  auto first = testing::OpenCatalogOrDie(uri_);
  auto second = testing::OpenCatalogOrDie(uri_);
  ASSERT_TRUE(first != nullptr && second != nullptr);
  auto b = FATHOM_TEST_VALUE(first->Begin());
  FATHOM_TEST_VALUE(b->Put(FATHOM_TEST_VALUE(b->Lookup("/r")), "g", FileAttrs(3, 1), At(NowNs())));
  std::atomic<bool> begun{false};
  std::thread other([&] {
    auto b2 = FATHOM_TEST_VALUE(second->Begin());
    begun = true;
    // It sees what the first writer committed: the next entry id follows the first's.
    EntryId id = FATHOM_TEST_VALUE(b2->Put(FATHOM_TEST_VALUE(b2->Lookup("/r")), "h", FileAttrs(4, 1), At(NowNs())));
    EXPECT_EQ(id, 4);
    EXPECT_TRUE(b2->Commit().ok());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(begun.load());
  ASSERT_TRUE(b->Commit().ok());
  other.join();
  EXPECT_TRUE(begun.load());
  EXPECT_EQ(FATHOM_TEST_VALUE(first->Info()).entries, 4u);
  EXPECT_TRUE(FATHOM_TEST_VALUE(first->Recount(false)).ok());
}

TEST_F(PgCatalogTest, NamesOfAnyBytesAndLustreAttributesComeBackExactly) {
  auto catalog = testing::OpenCatalogOrDie(uri_);
  ASSERT_NE(catalog, nullptr);
  const std::string odd = std::string("\xff\xfe new\nline \x01", 13);
  Attrs lustre = FileAttrs(3, 5);
  lustre.projid = 7;
  lustre.lustre = LustreInfo{};
  lustre.lustre->fid = "[0x200000401:0x1:0x0]";
  lustre.lustre->mdt_index = 1;
  lustre.lustre->stripe_count = 3;
  lustre.lustre->stripe_size = 1 << 20;
  lustre.lustre->pool = "fast";
  lustre.lustre->osts = {0, 3, 7};
  {
    auto b = FATHOM_TEST_VALUE(catalog->Begin());
    EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(NowNs())));
    FATHOM_TEST_VALUE(b->Put(r, odd, FileAttrs(2, 1), At(NowNs())));
    FATHOM_TEST_VALUE(b->Put(r, "lustre", lustre, At(NowNs())));
    ASSERT_TRUE(b->Commit().ok());
  }
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog->Stat("/r/" + odd))->name, odd);
  EXPECT_EQ(FATHOM_TEST_VALUE(catalog->Stat("/r/lustre"))->attrs, lustre);
  {
    auto b = FATHOM_TEST_VALUE(catalog->Begin());
    ASSERT_TRUE(b->Remove(FATHOM_TEST_VALUE(b->Lookup("/r")), odd, Removal{NowNs(), 9, 1000, "job\xff"}).ok());
    ASSERT_TRUE(b->Commit().ok());
  }
  std::vector<RemovedEntry> removed;
  ASSERT_TRUE(catalog->Removed("", 0, [&](const RemovedEntry& r) {
    removed.push_back(r);
    return true;
  }).ok());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].path, "/r/" + odd);
  EXPECT_EQ(removed[0].removal.jobid, "job\xff");
  EXPECT_EQ(removed[0].removal.uid, 1000u);
}

TEST_F(PgCatalogTest, PasswordIsLeftOutOfTheCatalogsInfo) {
  server_->Exec("CREATE ROLE writer LOGIN PASSWORD 'secret-word'; ALTER DATABASE " + database_ +
                " OWNER TO writer; GRANT ALL ON SCHEMA public TO writer", database_);
  const std::string uri = "postgresql://writer:secret-word@127.0.0.1:" + std::to_string(server_->port()) + "/" +
                          database_;
  auto catalog = testing::OpenCatalogOrDie(uri);
  ASSERT_NE(catalog, nullptr);
  CatalogInfo info = FATHOM_TEST_VALUE(catalog->Info());
  EXPECT_EQ(info.uri, "postgresql://writer@127.0.0.1:" + std::to_string(server_->port()) + "/" + database_);
  EXPECT_EQ(info.backend, "postgresql");
}

TEST(PgUriTest, PasswordIsLeftOutOfTheCatalogsLocation) {
  EXPECT_EQ(pg::RedactUri("postgresql://u:secret@h:5/db?sslmode=require"), "postgresql://u@h:5/db?sslmode=require");
  EXPECT_EQ(pg::RedactUri("postgresql://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(pg::RedactUri("postgres://h:5/db"), "postgres://h:5/db");
}

}  // namespace
}  // namespace fathom::catalog
