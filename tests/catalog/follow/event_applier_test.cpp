// EventApplier on real trees and a real catalog: the events are written by hand here (each
// test names the change it makes on disk and the events a source reports for it), so that
// what the catalog must hold afterwards is exactly known. Built twice: on SQLite
// (event_applier_test) and on PostgreSQL (event_applier_pg_test; catalog_test_target.h).
#include "catalog/follow/event_applier.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

#include "catalog/catalog_test_target.h"
#include "catalog/sync/catalog_scan.h"
#include "catalog/follow/drift.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::MakeDirs;
using testing::WriteFile;

class EventApplierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_ / "root";
    MakeDirs(root_);
    CatalogOptions options;
    options.uri = testing::NewCatalogUri(dir_, "catalog");
    auto opened = Catalog::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    catalog_ = std::move(opened.value());
    applier_ = std::make_unique<EventApplier>(*catalog_, "test", [this](std::string_view path) {
      scanned_.emplace_back(path);
      return Scan(std::string(path));
    });
  }

  Status Scan(const std::string& path) {
    std::atomic<bool> stop{false};
    return ScanIntoCatalog(*catalog_, {path}, {}, {}, stop).status();
  }

  Event Make(uint32_t mask, const std::string& rel, uint32_t cookie = 0) {
    Event e;
    e.id = ++next_id_;
    e.ts_ns = NowNs();
    e.mask = mask;
    e.cookie = cookie;
    e.root = root_;
    e.path = rel.empty() ? root_ : root_ + "/" + rel;
    e.source = "test";
    return e;
  }

  // Every difference between the catalog and the file system below the root.
  std::vector<std::string> Drift() { return catalog::Drift(*catalog_, root_); }

  void ScanRacedBy(int races);

  std::optional<Node> At(const std::string& rel) {
    auto node = catalog_->Stat(root_ + "/" + rel);
    EXPECT_TRUE(node.ok()) << node.status().message();
    return node.ok() ? node.value() : std::nullopt;
  }

  testing::TempDir dir_;
  std::string root_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<EventApplier> applier_;
  std::vector<std::string> scanned_;
  uint64_t next_id_ = 0;
};

TEST_F(EventApplierTest, RenamedPopulatedDirectoryTakesItsSubtreeAlong) {
  MakeDirs(root_ + "/a/y");
  WriteFile(root_ + "/a/x", "12345");
  WriteFile(root_ + "/a/y/z", "1");
  ASSERT_TRUE(Scan(root_).ok());
  const auto z = At("a/y/z");
  ASSERT_TRUE(z);
  testing::Rename(root_ + "/a", root_ + "/b");
  std::vector<Event> events{Make(kind::kMovedFrom | kind::kIsDir, "a", 7),
                            Make(kind::kMovedTo | kind::kIsDir, "b", 7)};
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_FALSE(At("a"));
  const auto moved = At("b/y/z");
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->id, z->id);  // the same entry, not a new one
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  EXPECT_EQ(catalog_->LastApplied("test").value(), events.back().id);
}

// A populated directory the catalog never held (its creation read too late, at a path it had
// left) renamed, with no ISDIR on the events (a Lustre MDT that does not hold the object logs
// none): once settled, the catalog holds what it holds.
TEST_F(EventApplierTest, ARenamedDirectoryTheCatalogLackedIsSettledWithItsContents) {
  MakeDirs(root_ + "/src");
  ASSERT_TRUE(Scan(root_).ok());
  MakeDirs(root_ + "/dst/d/inner/deeper");
  WriteFile(root_ + "/dst/d/inner/f", "x");
  std::vector<Event> events{Make(kind::kCreate | kind::kIsDir, "dst"), Make(kind::kMovedFrom, "src/d", 9),
                            Make(kind::kMovedTo, "dst/d", 9)};
  ASSERT_TRUE(applier_->Apply(events).ok());
  ASSERT_TRUE(applier_->Settle().ok());
  EXPECT_TRUE(At("dst/d/inner/f"));
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, AnEntryChangedAThousandTimesInABatchIsReadOnce) {
  ASSERT_TRUE(Scan(root_).ok());
  WriteFile(root_ + "/f", "final content");
  std::vector<Event> events{Make(kind::kCreate, "f")};
  for (int i = 0; i < 1000; ++i) events.push_back(Make(kind::kModify, "f"));
  events.push_back(Make(kind::kCloseWrite, "f"));
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_EQ(applier_->counters().reads, 2u);  // f, and the root whose times its CREATE changed
  ASSERT_TRUE(At("f"));
  EXPECT_EQ(At("f")->attrs.size, 13);
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, AFileGoneBeforeItIsReadIsLeftToItsDelete) {
  ASSERT_TRUE(Scan(root_).ok());
  std::vector<Event> created{Make(kind::kCreate, "short"), Make(kind::kCloseWrite, "short")};
  ASSERT_TRUE(applier_->Apply(created).ok());  // "short" no longer exists
  EXPECT_EQ(applier_->counters().gone, 1u);
  EXPECT_FALSE(At("short"));
  std::vector<Event> deleted{Make(kind::kDelete, "short")};
  ASSERT_TRUE(applier_->Apply(deleted).ok());
  EXPECT_EQ(catalog_->LastApplied("test").value(), deleted.back().id);
}

TEST_F(EventApplierTest, ARemovalKeepsWhoRemovedItWhenTheSourceSays) {
  WriteFile(root_ + "/gone.dat", "data");
  ASSERT_TRUE(Scan(root_).ok());
  ASSERT_EQ(::unlink((root_ + "/gone.dat").c_str()), 0);
  Event e = Make(kind::kDelete, "gone.dat");
  e.attrs = R"({"fid":"[0x200000400:0x1:0x0]","uid":1234,"gid":5,"jobid":"dd.1234"})";
  ASSERT_TRUE(applier_->Apply(std::vector<Event>{e}).ok());
  std::vector<RemovedEntry> removed;
  ASSERT_TRUE(catalog_->Removed(root_, 0, [&](const RemovedEntry& r) {
                        removed.push_back(r);
                        return true;
                      }).ok());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].path, root_ + "/gone.dat");
  EXPECT_EQ(removed[0].attrs.size, 4);
  EXPECT_EQ(removed[0].removal.uid, 1234u);
  EXPECT_EQ(removed[0].removal.jobid, "dd.1234");
  EXPECT_EQ(removed[0].removal.event_id, e.id);
}

TEST_F(EventApplierTest, AnOverflowRescansTheSubtreeItNamesBeforeItsIdIsRecorded) {
  MakeDirs(root_ + "/d");
  ASSERT_TRUE(Scan(root_).ok());
  // Changes whose events the kernel dropped:
  WriteFile(root_ + "/d/new", "x");
  MakeDirs(root_ + "/d/sub/deeper");
  std::vector<Event> events{Make(kind::kOverflow, "")};
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_EQ(scanned_, std::vector<std::string>{root_});
  EXPECT_TRUE(At("d/sub/deeper"));
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  EXPECT_EQ(catalog_->LastApplied("test").value(), events.back().id);
}

TEST_F(EventApplierTest, ARootTheCatalogLacksIsScannedWhenItsFirstEventComes) {
  MakeDirs(root_ + "/old/deep");
  WriteFile(root_ + "/old/deep/f", "before the catalog");
  WriteFile(root_ + "/new", "n");
  std::vector<Event> events{Make(kind::kCreate, "new")};
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_EQ(scanned_, std::vector<std::string>{root_});
  EXPECT_TRUE(At("old/deep/f"));
  EXPECT_TRUE(At("new"));
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, AFileMovedInFromOutsideTheRootsIsAdded) {
  ASSERT_TRUE(Scan(root_).ok());
  WriteFile(root_ + "/arrived", "abc");
  std::vector<Event> events{Make(kind::kMovedTo, "arrived", 3)};
  ASSERT_TRUE(applier_->Apply(events).ok());
  ASSERT_TRUE(At("arrived"));
  EXPECT_EQ(At("arrived")->attrs.size, 3);
}

TEST_F(EventApplierTest, AFileMovedOutOfTheRootsIsRemoved) {
  WriteFile(root_ + "/leaving", "abc");
  ASSERT_TRUE(Scan(root_).ok());
  testing::Rename(root_ + "/leaving", dir_ / "outside");
  std::vector<Event> events{Make(kind::kMovedFrom, "leaving", 4)};
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_TRUE(At("leaving"));  // held back: its MOVED_TO could come with the next events
  EXPECT_EQ(catalog_->LastApplied("test").value(), 0u);
  ASSERT_TRUE(applier_->Flush().ok());  // the stream has nothing more: it was moved out
  EXPECT_FALSE(At("leaving"));
  EXPECT_EQ(catalog_->LastApplied("test").value(), events.back().id);
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, ARenameSplitBetweenTwoBatchesStaysARename) {
  MakeDirs(root_ + "/src/inner");
  WriteFile(root_ + "/src/inner/f", "1");
  ASSERT_TRUE(Scan(root_).ok());
  const auto f = At("src/inner/f");
  ASSERT_TRUE(f);
  testing::Rename(root_ + "/src", root_ + "/dst");
  std::vector<Event> first{Make(kind::kMovedFrom | kind::kIsDir, "src", 5)};
  std::vector<Event> second{Make(kind::kMovedTo | kind::kIsDir, "dst", 5)};
  ASSERT_TRUE(applier_->Apply(first).ok());
  ASSERT_TRUE(applier_->Apply(second).ok());
  const auto moved = At("dst/inner/f");
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->id, f->id);
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, FilesCreatedInADirectoryRenamedInTheSameBatchLandAtItsNewPath) {
  ASSERT_TRUE(Scan(root_).ok());
  MakeDirs(root_ + "/tmp");
  WriteFile(root_ + "/tmp/part", "p");
  testing::Rename(root_ + "/tmp", root_ + "/final");
  std::vector<Event> events{Make(kind::kCreate | kind::kIsDir, "tmp"),
                            Make(kind::kCreate, "tmp/part"),
                            Make(kind::kCloseWrite, "tmp/part"),
                            Make(kind::kMovedFrom | kind::kIsDir, "tmp", 9),
                            Make(kind::kMovedTo | kind::kIsDir, "final", 9)};
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_TRUE(At("final/part"));
  EXPECT_FALSE(At("tmp"));
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, ADeletedDirectoryTakesItsSubtreeAndPendingReadsAlong) {
  MakeDirs(root_ + "/d/e");
  WriteFile(root_ + "/d/e/f", "1");
  ASSERT_TRUE(Scan(root_).ok());
  WriteFile(root_ + "/d/e/f", "22");
  testing::RemoveTree(root_ + "/d");
  std::vector<Event> events{Make(kind::kModify, "d/e/f"), Make(kind::kDelete, "d/e/f"),
                            Make(kind::kDelete | kind::kIsDir, "d/e"),
                            Make(kind::kDelete | kind::kIsDir, "d")};
  ASSERT_TRUE(applier_->Apply(events).ok());
  EXPECT_FALSE(At("d"));
  EXPECT_EQ(applier_->counters().reads, 1u);  // the root, which lost d; nothing below d
  EXPECT_EQ(applier_->counters().gone, 0u);
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  auto report = catalog_->Recount(false);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report.value().ok());
}

// g is created (X), renamed to f, and g created again (G); the follower reads g while the
// stream stands before the rename, so it puts G there, then the rename moves G to f. Neither
// name can be put while the other holds its object; once caught up, Settle() makes both right.
TEST_F(EventApplierTest, NamesReadAheadOfTheirRenamesAreSettledOnceCaughtUp) {
  ASSERT_TRUE(Scan(root_).ok());
  WriteFile(root_ + "/g", "x");
  testing::Rename(root_ + "/g", root_ + "/f");
  WriteFile(root_ + "/g", "gg");
  ASSERT_TRUE(applier_->Apply(std::vector<Event>{Make(kind::kCreate, "g")}).ok());
  std::vector<Event> rest{Make(kind::kCloseWrite, "g"), Make(kind::kMovedFrom, "g", 3),
                          Make(kind::kMovedTo, "f", 3), Make(kind::kCreate, "g"),
                          Make(kind::kCloseWrite, "g")};
  ASSERT_TRUE(applier_->Apply(rest).ok());
  EXPECT_NE(Drift(), std::vector<std::string>{});  // f holds G, g nothing
  ASSERT_TRUE(applier_->Settle().ok());
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  EXPECT_EQ(applier_->counters().settled, 1u);  // the root, where both names are
  EXPECT_EQ(applier_->counters().corrected, 2u);
  EXPECT_EQ(catalog_->Pending("test").value(), std::vector<std::string>{});
  EXPECT_EQ(catalog_->LastApplied("test").value(), rest.back().id);
  auto report = catalog_->Recount(false);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report.value().ok());
}

// x was a directory holding y, then a file, then a directory holding y again; a scan saw the
// file after the stream's first events were written, so they are older than what the catalog
// holds: y's creation cannot go under the file, and waits (the follower does not fail) until
// the stream or the settling says what x is.
TEST_F(EventApplierTest, ANameTheCatalogHoldsAsAFileIsNoParentUntilSettled) {
  std::vector<Event> before{Make(kind::kCreate | kind::kIsDir, "x"), Make(kind::kCreate, "x/y")};
  WriteFile(root_ + "/x", "1");
  ASSERT_TRUE(Scan(root_).ok());
  ASSERT_EQ(::unlink((root_ + "/x").c_str()), 0);
  MakeDirs(root_ + "/x");
  WriteFile(root_ + "/x/y", "1");
  ASSERT_TRUE(applier_->Apply(before).ok());
  Status settled = applier_->Settle();
  ASSERT_TRUE(settled.ok()) << settled.message();
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  ASSERT_TRUE(At("x/y"));
}

// b held dd; then `mv b/dd dd; mv b dd/b`, of which the stream holds the second rename, and
// before it a change of dd whose time is later than the rename's (sources stamp events when
// they read them), so the catalog knows dd, inside b, as of after the rename. dd's place
// cannot come from the stream then: b is not moved into its own subtree (the follower does
// not fail), and the settling puts both right.
TEST_F(EventApplierTest, ARenameIntoADirectoryTheCatalogHoldsInsideTheMovedOneWaitsForTheSettling) {
  MakeDirs(root_ + "/b/dd");
  ASSERT_TRUE(Scan(root_).ok());
  std::vector<Event> rename{Make(kind::kMovedFrom | kind::kIsDir, "b", 7), Make(kind::kMovedTo | kind::kIsDir, "dd/b", 7)};
  std::vector<Event> changed{Make(kind::kAttrib | kind::kIsDir, "b/dd")};
  changed[0].id = rename[0].id;  // first in the stream, stamped later
  rename[0].id += 1;
  rename[1].id += 1;
  ASSERT_TRUE(applier_->Apply(changed).ok());
  testing::Rename(root_ + "/b/dd", root_ + "/dd");
  testing::Rename(root_ + "/b", root_ + "/dd/b");
  Status applied = applier_->Apply(rename);
  ASSERT_TRUE(applied.ok()) << applied.message();
  Status settled = applier_->Settle();
  ASSERT_TRUE(settled.ok()) << settled.message();
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  ASSERT_TRUE(At("dd/b"));
  auto report = catalog_->Recount(false);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report.value().ok());
}

// An OVERFLOW below a name the catalog holds as a file cannot be scanned in place: the
// directory above it is settled instead, which scans what it finds there.
TEST_F(EventApplierTest, AnOverflowBelowAFileInTheCatalogIsSettledNotScannedInPlace) {
  std::vector<Event> before{Make(kind::kOverflow, "x/sub")};
  WriteFile(root_ + "/x", "1");
  ASSERT_TRUE(Scan(root_).ok());
  ASSERT_EQ(::unlink((root_ + "/x").c_str()), 0);
  MakeDirs(root_ + "/x/sub");
  WriteFile(root_ + "/x/sub/f", "1");
  ASSERT_TRUE(applier_->Apply(before).ok());
  EXPECT_EQ(applier_->counters().rescans, 0u);
  Status settled = applier_->Settle();
  ASSERT_TRUE(settled.ok()) << settled.message();
  EXPECT_EQ(applier_->counters().rescans, 1u);  // x, found a directory
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

// The tree keeps changing: a subtree chosen for a scan is gone when the scan opens it. The
// follower goes on, and its parent is settled.
TEST_F(EventApplierTest, ASubtreeGoneBeforeItsScanLeavesItsParentToSettle) {
  MakeDirs(root_ + "/d/e");
  ASSERT_TRUE(Scan(root_).ok());
  EventApplier racing(*catalog_, "test", [this](std::string_view path) {
    testing::RemoveTree(std::string(path));  // removed between the check and the scan
    return Scan(std::string(path));
  });
  ASSERT_TRUE(racing.Apply(std::vector<Event>{Make(kind::kOverflow, "d")}).ok());
  ASSERT_TRUE(racing.Settle().ok());
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  EXPECT_FALSE(At("d"));
}

// The same, the directory made again at once (the tree keeps changing): the scan fails on a
// path that is a directory again when the failure is looked at. The follower goes on; it
// stopped before, naming the path.
// The first `races` scans find their subtree removed under them and made again (with other
// contents) right after: each leaves the path to settle, and one Settle() converges.
void EventApplierTest::ScanRacedBy(int races) {
  MakeDirs(root_ + "/d/e");
  ASSERT_TRUE(Scan(root_).ok());
  int raced = 0;
  EventApplier racing(*catalog_, "test", [this, &raced, races](std::string_view path) {
    if (raced == races) return Scan(std::string(path));
    ++raced;
    testing::RemoveTree(std::string(path));
    Status scanned = Scan(std::string(path));
    MakeDirs(std::string(path) + "/again" + std::to_string(raced));
    return scanned;
  });
  Status applied = racing.Apply(std::vector<Event>{Make(kind::kOverflow, "d")});
  ASSERT_TRUE(applied.ok()) << applied.message();
  Status settled = racing.Settle();
  ASSERT_TRUE(settled.ok()) << settled.message();
  EXPECT_EQ(raced, races);
  EXPECT_EQ(Drift(), std::vector<std::string>{});
}

TEST_F(EventApplierTest, ASubtreeGoneAndMadeAgainDuringItsScanIsSettledWithoutStoppingTheFollower) {
  ScanRacedBy(1);
}

TEST_F(EventApplierTest, ASubtreeGoneAgainWhileItSettlesIsSettledInTheSameCall) { ScanRacedBy(2); }

// A follower killed before it settles leaves the directories to compare in the catalog: the
// next one settles them even with no event left to apply.
TEST_F(EventApplierTest, DirectoriesToSettleOutliveTheFollower) {
  ASSERT_TRUE(Scan(root_).ok());
  WriteFile(root_ + "/g", "x");
  testing::Rename(root_ + "/g", root_ + "/f");
  WriteFile(root_ + "/g", "gg");
  ASSERT_TRUE(applier_->Apply(std::vector<Event>{Make(kind::kCreate, "g")}).ok());
  ASSERT_TRUE(applier_->Apply(std::vector<Event>{Make(kind::kMovedFrom, "g", 3),
                                                 Make(kind::kMovedTo, "f", 3),
                                                 Make(kind::kCreate, "g")}).ok());
  EXPECT_EQ(catalog_->Pending("test").value(),
            (std::vector<std::string>{root_ + "/f", root_ + "/g", root_ + "/"}));
  EventApplier next(*catalog_, "test", [this](std::string_view path) { return Scan(std::string(path)); });
  ASSERT_TRUE(next.Settle().ok());
  EXPECT_EQ(Drift(), std::vector<std::string>{});
  EXPECT_EQ(catalog_->Pending("test").value(), std::vector<std::string>{});
}

}  // namespace
}  // namespace fathom::catalog
