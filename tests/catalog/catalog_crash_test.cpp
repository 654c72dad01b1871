// A writer killed (SIGKILL) at random points while committing batches: the catalog reopened
// holds exactly the batches up to its recorded stream position (each batch adds its files,
// removes those of three batches before and renames a directory), and its kept statistics
// recount clean. Built twice (catalog_test_target.h): on a SQLite file (catalog_crash_test)
// and on a PostgreSQL database (catalog_crash_pg_test), where the server sees its client die
// in the middle of a transaction.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <thread>

#include "catalog/catalog_test_target.h"
#include "catalog/catalog_test_util.h"
#include "catalog/freshness.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::DirAttrs;
using testing::FileAttrs;

constexpr int kFilesPerBatch = 40;
constexpr int kDirs = 4;

uint64_t FileIno(uint64_t batch, int j) { return 1000 + batch * kFilesPerBatch + j; }
std::string FileName(uint64_t batch, int j) {
  return "f" + std::to_string(batch) + "_" + std::to_string(j);
}
// Batch i renames directory i % kDirs: "d<n>" <-> "e<n>", so its name after batch `after`
// depends on how many batches up to `after` renamed it.
std::string DirName(uint64_t after, int d) {
  uint64_t renames = d == 0 ? after / kDirs : (after >= static_cast<uint64_t>(d) ? (after - d) / kDirs + 1 : 0);
  return (renames % 2 == 1 ? "e" : "d") + std::to_string(d);
}

// Applies batch `i` (>= 1) and commits it with stream position i.
Status ApplyBatch(Catalog& catalog, uint64_t i) {
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> b, catalog.Begin());
  int64_t now = NowNs();
  FATHOM_ASSIGN_OR_RETURN(EntryId root, b->Lookup("/c"));
  int d = static_cast<int>(i % kDirs);
  FATHOM_ASSIGN_OR_RETURN(EntryId dir, b->Lookup("/c/" + DirName(i - 1, d)));
  for (int j = 0; j < kFilesPerBatch; ++j) {
    FATHOM_RETURN_IF_ERROR(b->Put(dir, FileName(i, j), FileAttrs(FileIno(i, j), static_cast<int64_t>(i * 10 + j)),
                                  Observation{now, 0})
                               .status());
  }
  if (i > 3) {
    FATHOM_ASSIGN_OR_RETURN(EntryId old_dir, b->Lookup("/c/" + DirName(i - 1, static_cast<int>((i - 3) % kDirs))));
    for (int j = 0; j < kFilesPerBatch; ++j) {
      FATHOM_RETURN_IF_ERROR(b->Remove(old_dir, FileName(i - 3, j), Removal{now, i, {}, {}}));
    }
  }
  FATHOM_RETURN_IF_ERROR(b->Move(root, DirName(i - 1, d), root, DirName(i, d), Observation{now, 0}, Removal{}));
  return b->Commit("crash-test", i);
}

Status Prepare(Catalog& catalog) {
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> b, catalog.Begin());
  int64_t now = NowNs();
  FATHOM_ASSIGN_OR_RETURN(EntryId root, b->PutRoot("/c", DirAttrs(1), Observation{now, 0}));
  for (int d = 0; d < kDirs; ++d) {
    FATHOM_RETURN_IF_ERROR(b->Put(root, "d" + std::to_string(d), DirAttrs(10 + d), Observation{now, 0}).status());
  }
  return b->Commit("crash-test", 0);
}

// The child: continues from the recorded position until killed.
[[noreturn]] void Writer(const std::string& path) {
  CatalogOptions options;
  options.uri = path;
  auto catalog = Catalog::Open(options);
  if (!catalog.ok()) _exit(3);
  auto last = catalog.value()->LastApplied("crash-test");
  if (!last.ok()) _exit(4);
  for (uint64_t i = last.value() + 1;; ++i) {
    if (!ApplyBatch(*catalog.value(), i).ok()) _exit(5);
  }
}

TEST(CatalogCrashTest, KilledWriterLeavesExactlyTheCommittedBatches) {
  fathom::testing::TempDir dir;
  const std::string path = testing::NewCatalogUri(dir, "crash");
  {
    auto catalog = testing::OpenCatalogOrDie(path);
    ASSERT_NE(catalog, nullptr);
    ASSERT_TRUE(Prepare(*catalog).ok());
  }
  std::mt19937 rng(7);
  uint64_t previous = 0;
  for (int round = 0; round < 6; ++round) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) Writer(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(40 + rng() % 200));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself with status " << status;
    {
      // Taking the writers' turn waits until the dead writer's transaction has ended: a
      // PostgreSQL server finishes a COMMIT its client sent, or rolls back, once it sees the
      // client gone. Read before, the batches could change between two of the reads below.
      auto catalog = testing::OpenCatalogOrDie(path);
      ASSERT_NE(catalog, nullptr);
      ASSERT_TRUE(catalog->Begin().ok());
    }

    auto catalog = testing::OpenCatalogOrDie(path, true);
    ASSERT_NE(catalog, nullptr);
    uint64_t k = catalog->LastApplied("crash-test").value();
    EXPECT_GE(k, previous);
    previous = k;
    for (uint64_t i = 1; i <= k + 2; ++i) {
      bool kept = i <= k && i + 3 > k;
      std::string file = "/c/" + DirName(k, static_cast<int>(i % kDirs)) + "/" + FileName(i, 0);
      auto node = catalog->Stat(file);
      ASSERT_TRUE(node.ok()) << node.status().message();
      EXPECT_EQ(node.value().has_value(), kept) << file << " after batch " << k;
    }
    auto root = catalog->Stat("/c").value();
    ASSERT_TRUE(root.has_value());
    Totals totals = catalog->Subtree(root->id).value();
    EXPECT_EQ(totals.files, std::min<uint64_t>(k, 3) * kFilesPerBatch) << "after batch " << k;
    EXPECT_EQ(totals.dirs, 1u + kDirs);
    RecountReport report = catalog->Recount(false).value();
    EXPECT_TRUE(report.ok()) << report.differences.front();
  }
  EXPECT_GT(previous, 0u) << "no batch was committed before the kills";
}

}  // namespace
}  // namespace fathom::catalog
