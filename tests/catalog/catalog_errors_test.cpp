// Files a catalog refuses, and failures it reports, each with the cause and the fix: a file
// that is not a catalog (an event store, random bytes, another application's database), a
// catalog of a newer schema, a damaged catalog, a catalog opened read-only asked to write, a
// catalog on a read-only file system (read there by a reader all the same), a full disk (a small tmpfs mounted by the test).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "catalog/catalog_test_util.h"
#include "catalog/freshness.h"
#include "support/read_only_mount.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;

// Runs `sql` on the SQLite file `path` (created when absent).
void Sql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

std::string OpenError(const std::string& uri, bool read_only = false) {
  CatalogOptions options;
  options.uri = uri;
  options.read_only = read_only;
  auto opened = Catalog::Open(options);
  EXPECT_FALSE(opened.ok()) << uri << " opened";
  return opened.ok() ? "" : opened.status().message();
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Fills a catalog with `files` files under /r, committing every `per_batch`.
Status Fill(Catalog& catalog, int files, int per_batch, uint64_t first_ino = 100) {
  int done = 0;
  while (done < files) {
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> b, catalog.Begin());
    FATHOM_ASSIGN_OR_RETURN(EntryId root, b->PutRoot("/r", DirAttrs(1), At(NowNs())));
    for (int i = 0; i < per_batch && done < files; ++i, ++done) {
      std::string name = "a-rather-long-file-name-to-fill-pages-" + std::to_string(first_ino + done);
      FATHOM_RETURN_IF_ERROR(b->Put(root, name, FileAttrs(first_ino + done, done), At(NowNs())).status());
    }
    FATHOM_RETURN_IF_ERROR(b->Commit());
  }
  return Status::Ok();
}

TEST(CatalogErrorsTest, EventStoreIsRefusedAsNotACatalog) {
  fathom::testing::TempDir dir;
  Sql(dir / "events.db", "CREATE TABLE chunks(first_id INTEGER PRIMARY KEY); PRAGMA application_id = 1179928653;");
  for (bool read_only : {false, true}) {
    std::string error = OpenError(dir / "events.db", read_only);
    EXPECT_TRUE(Contains(error, "is not a fathom catalog (it is a fathom event store)")) << error;
    EXPECT_TRUE(Contains(error, "give a catalog file")) << error;
  }
}

TEST(CatalogErrorsTest, RandomBytesAreRefusedAsNotASqliteDatabase) {
  fathom::testing::TempDir dir;
  std::mt19937 rng(3);
  std::string bytes(8192, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  std::ofstream(dir / "random.db", std::ios::binary) << bytes;
  std::string error = OpenError(dir / "random.db");
  EXPECT_TRUE(Contains(error, "is not a fathom catalog (not a SQLite database)")) << error;
}

TEST(CatalogErrorsTest, AnotherApplicationsDatabaseIsRefusedAndLeftUntouched) {
  fathom::testing::TempDir dir;
  Sql(dir / "other.db", "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
  std::string error = OpenError(dir / "other.db");
  EXPECT_TRUE(Contains(error, "a SQLite database of another application")) << error;
}

TEST(CatalogErrorsTest, CatalogOfANewerSchemaIsRefusedNamingBothVersions) {
  fathom::testing::TempDir dir;
  ASSERT_NE(testing::OpenCatalogOrDie(dir / "c.db"), nullptr);
  Sql(dir / "c.db", "PRAGMA user_version = 99;");
  std::string error = OpenError(dir / "c.db");
  EXPECT_TRUE(Contains(error, "has schema version 99, newer than this fathom understands (1)")) << error;
  EXPECT_TRUE(Contains(error, "use a newer fathom")) << error;
}

TEST(CatalogErrorsTest, MissingCatalogOpenedReadOnlyIsNotCreated) {
  fathom::testing::TempDir dir;
  std::string error = OpenError(dir / "none.db", true);
  EXPECT_TRUE(Contains(error, "no catalog at " + (dir / "none.db"))) << error;
  struct stat st {};
  EXPECT_NE(stat((dir / "none.db").c_str(), &st), 0);
  EXPECT_TRUE(Contains(OpenError(dir.path()), "is a directory, not a fathom catalog"));
}

TEST(CatalogErrorsTest, DamagedCatalogIsReportedAsDamaged) {
  fathom::testing::TempDir dir;
  const std::string path = dir / "c.db";
  {
    auto catalog = testing::OpenCatalogOrDie(path);
    ASSERT_NE(catalog, nullptr);
    ASSERT_TRUE(Fill(*catalog, 3000, 3000).ok());
  }
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_GT(st.st_size, 64 * 4096);
  {  // garbage over every page but the first (the header and the schema)
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    std::mt19937 rng(5);
    std::string garbage(static_cast<size_t>(st.st_size) - 4096, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    file.seekp(4096);
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  CatalogOptions options;
  options.uri = path;
  options.read_only = true;
  auto opened = Catalog::Open(options);
  std::string error;
  if (!opened.ok()) {
    error = opened.status().message();
  } else {
    auto walked = opened.value()->Walk("/r", [](const Visit&) { return WalkStep::kContinue; });
    ASSERT_FALSE(walked.ok());
    error = walked.message();
  }
  EXPECT_TRUE(Contains(error, "the file is damaged (corrupt); move it aside and build a new catalog")) << error;
  EXPECT_TRUE(Contains(error, "catalog " + path)) << error;
}

TEST(CatalogErrorsTest, CatalogOpenedReadOnlyRefusesToWrite) {
  fathom::testing::TempDir dir;
  {
    auto catalog = testing::OpenCatalogOrDie(dir / "c.db");
    ASSERT_NE(catalog, nullptr);
    ASSERT_TRUE(Fill(*catalog, 10, 10).ok());
  }
  auto catalog = testing::OpenCatalogOrDie(dir / "c.db", true);
  ASSERT_NE(catalog, nullptr);
  auto batch = catalog->Begin();
  ASSERT_FALSE(batch.ok());
  EXPECT_TRUE(Contains(batch.status().message(), "was opened read-only, so it cannot be changed"));
  EXPECT_FALSE(catalog->BeginScan("/r", false).ok());
  auto repair = catalog->Recount(true);
  ASSERT_FALSE(repair.ok());
  EXPECT_TRUE(Contains(repair.status().message(), "cannot repair"));
  EXPECT_TRUE(catalog->Recount(false).value().ok());
  EXPECT_EQ(catalog->Info().value().entries, 11u);
}

TEST(CatalogErrorsTest, WriterOnAReadOnlyFileSystemIsToldSoWhileAReaderReadsTheCatalog) {
  fathom::testing::TempDir rw;
  fathom::testing::TempDir view;
  {
    auto catalog = testing::OpenCatalogOrDie(rw / "c.db");
    ASSERT_NE(catalog, nullptr);
    ASSERT_TRUE(Fill(*catalog, 10, 10).ok());
  }
  fathom::testing::ReadOnlyMount mount(rw.path(), view.path());
  ASSERT_EQ(mount.error(), 0) << "mounting a read-only view failed (tests run as root): "
                              << std::strerror(mount.error());
  std::string error = OpenError(view / "c.db");
  EXPECT_TRUE(Contains(error, "the file system holding the catalog is mounted read-only")) << error;
  EXPECT_TRUE(Contains(error, "open it read-only to query it")) << error;
  // ... as the message says: a reader reads it there, whole.
  auto reader = testing::OpenCatalogOrDie(view / "c.db", true);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Info().value().entries, 11u);
  EXPECT_TRUE(reader->Recount(false).value().ok());
}

// A tmpfs of `size` mounted on `dir` for one test, detached on destruction.
class SmallTmpfs {
 public:
  SmallTmpfs(const std::string& dir, const char* size) : dir_(dir) {
    std::string options = std::string("size=") + size;
    error_ = mkdir(dir.c_str(), 0755) == 0 && mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) == 0
                 ? 0
                 : errno;
  }
  ~SmallTmpfs() {
    if (error_ == 0) umount2(dir_.c_str(), MNT_DETACH);
  }
  int error() const { return error_; }

 private:
  std::string dir_;
  int error_ = 0;
};

TEST(CatalogErrorsTest, FullDiskIsReportedAndLeavesTheCatalogConsistent) {
  fathom::testing::TempDir dir;
  const std::string mnt = dir / "small";
  SmallTmpfs tmpfs(mnt, "512k");
  ASSERT_EQ(tmpfs.error(), 0) << "mounting a small tmpfs failed (tests run as root): "
                              << std::strerror(tmpfs.error());
  const std::string path = mnt + "/c.db";
  Status filled;
  {
    auto catalog = testing::OpenCatalogOrDie(path);
    ASSERT_NE(catalog, nullptr);
    filled = Fill(*catalog, 100000, 500);
  }
  ASSERT_FALSE(filled.ok()) << "512 KiB held 100000 entries";
  EXPECT_TRUE(Contains(filled.message(), "disk full: no space left on the file system holding the catalog"))
      << filled.message();
  EXPECT_EQ(filled.code(), std::error_code(ENOSPC, std::generic_category()));
  {
    auto catalog = testing::OpenCatalogOrDie(path, true);
    ASSERT_NE(catalog, nullptr);
    RecountReport report = catalog->Recount(false).value();
    EXPECT_TRUE(report.ok());
    EXPECT_GT(report.entries, 1u);
    EXPECT_EQ((report.entries - 1) % 500, 0u);  // whole batches only
  }
}

}  // namespace
}  // namespace fathom::catalog
