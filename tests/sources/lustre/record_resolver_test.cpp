// RecordResolver: paths, the FID cache and the mapping of every record type. fid2path is
// answered by MemoryLustre, a real in-memory namespace written for these tests (see
// memory_lustre.h), so the calls the resolver makes can be counted.
#include "sources/lustre/record_resolver.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sources/lustre/memory_lustre.h"

namespace fathom::lustre_source {
namespace {

using lustre::ChangelogRecord;
using lustre::kRootFid;
using testing::MemoryLustre;

constexpr const char* kMount = "/mnt/testfs";

class ResolverTest : public ::testing::Test {
 protected:
  void Make(size_t cache_size = 1000, std::vector<std::string> roots = {}, bool recursive = true,
            uint32_t kinds = kind::kAll, bool check_directories = false) {
    ResolverConfig config;
    config.mount = kMount;
    config.source = "lustre:testfs-MDT0000";
    config.mdt = 0;
    config.roots = std::move(roots);
    config.recursive = recursive;
    config.kinds = kinds;
    config.cache_size = cache_size;
    config.check_directories = check_directories;
    resolver_ = std::make_unique<RecordResolver>(
        config, [this](const lustre::Fid& fid) { return fs_.Fid2Path(fid); });
  }

  // Resolves what was logged since the last call; "KINDS /relative" lines.
  std::vector<std::string> Resolve() {
    events_.clear();
    auto records = fs_.TakeRecords();
    resolver_->Resolve(records, events_);
    std::vector<std::string> lines;
    for (const auto& e : events_)
      lines.push_back(KindNames(e.mask) + " " + RelativePath(e.root, e.path));
    return lines;
  }

  MemoryLustre fs_;
  std::unique_ptr<RecordResolver> resolver_;
  std::vector<Event> events_;
};

using Lines = std::vector<std::string>;

TEST_F(ResolverTest, CreationsAreLearnedFromRecordsWithoutFid2Path) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d");
  auto e = fs_.Mkdir(d, "e");
  fs_.Create(e, "f");
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /d", "CREATE,ISDIR /d/e", "CREATE /d/e/f"}));
  EXPECT_EQ(fs_.fid2path_calls, 0);
  EXPECT_EQ(events_[2].path, "/mnt/testfs/d/e/f");
  EXPECT_EQ(events_[2].root, "/mnt/testfs");
  EXPECT_EQ(events_[2].source, "lustre:testfs-MDT0000");
}

// Several MDTs: a directory renamed by a record logged on another MDT (its new parent's) is
// never seen renamed here; the records of this MDT in it and below it are placed where it is
// now, and what the cache learns follows it.
TEST_F(ResolverTest, DirectoryRenamedOnAnotherMdtIsFoundWhereItIsNow) {
  Make(1000, {}, true, kind::kAll, true);
  auto a = fs_.Mkdir(kRootFid, "a");
  auto b = fs_.Mkdir(kRootFid, "b");
  auto d = fs_.Mkdir(a, "d");
  auto sub = fs_.Mkdir(d, "sub");
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /a", "CREATE,ISDIR /b", "CREATE,ISDIR /a/d", "CREATE,ISDIR /a/d/sub"}));
  fs_.Rename(a, "d", b, "d");
  fs_.TakeRecords();  // logged on the MDT of b
  auto f = fs_.Create(d, "f");
  fs_.Create(sub, "g");
  fs_.Touch(f, CL_MTIME);
  EXPECT_EQ(Resolve(), (Lines{"CREATE /b/d/f", "CREATE /b/d/sub/g", "MODIFY /b/d/f"}));
  // Once per batch: the next batch asks again, finds it where the cache has it.
  const int calls = fs_.fid2path_calls;
  fs_.Create(sub, "h");
  EXPECT_EQ(Resolve(), (Lines{"CREATE /b/d/sub/h"}));
  EXPECT_EQ(fs_.fid2path_calls, calls + 1);
}

// Several MDTs: a file renamed by a record of this MDT still to be read is reported at the
// name it had when its record was written, as with one MDT.
TEST_F(ResolverTest, CheckedFileKeepsItsNameUntilItsRenameIsRead) {
  Make(1000, {}, true, kind::kAll, true);
  auto d = fs_.Mkdir(kRootFid, "d");
  auto f = fs_.Create(d, "f");
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /d", "CREATE /d/f"}));
  fs_.Touch(f, CL_CLOSE);
  fs_.Rename(d, "f", d, "g");
  auto records = fs_.TakeRecords();
  ASSERT_EQ(records.size(), 2u);
  events_.clear();
  resolver_->Resolve(std::span(records).first(1), events_);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].path, std::string(kMount) + "/d/f");
  events_.clear();
  resolver_->Resolve(std::span(records).last(1), events_);
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[1].path, std::string(kMount) + "/d/g");
}

// One MDT: the cache is right as of each record, and fid2path (the present) is not asked:
// a directory renamed since is reported where it was when the record was written.
TEST_F(ResolverTest, OneMdtPlacesRecordsWhereTheirDirectoryWasThen) {
  Make();
  auto a = fs_.Mkdir(kRootFid, "a");
  auto b = fs_.Mkdir(kRootFid, "b");
  auto d = fs_.Mkdir(a, "d");
  fs_.Create(d, "f");
  fs_.Rename(a, "d", b, "d");
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /a", "CREATE,ISDIR /b", "CREATE,ISDIR /a/d", "CREATE /a/d/f",
                              "MOVED_FROM,ISDIR /a/d", "MOVED_TO,ISDIR /b/d"}));
  EXPECT_EQ(fs_.fid2path_calls, 0);
}

TEST_F(ResolverTest, ObjectRecordsAreResolvedOnceThenCached) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "old", false);  // existed before the changelog was read
  auto f = fs_.Create(d, "f", false);
  for (int i = 0; i < 5; ++i) fs_.Touch(f, CL_MTIME);
  EXPECT_EQ(Resolve(), Lines(5, "MODIFY /old/f"));
  EXPECT_EQ(fs_.fid2path_calls, 1);
}

// Records without a name (chmod's SATTR carries no p=) of a file with several links are
// reported at its oldest surviving link, fid2path's first: whatever link was made, renamed
// or removed last, and whether the cache knew the file or not.
TEST_F(ResolverTest, NamelessRecordsOfAHardLinkedFileAreAtItsOldestLink) {
  Make();
  auto w = fs_.Mkdir(kRootFid, "w");
  auto z = fs_.Mkdir(w, "z");
  auto f = fs_.Create(z, "f1.txt");
  fs_.Link(f, w, "hl.txt");
  fs_.Touch(f, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /w", "CREATE,ISDIR /w/z", "CREATE /w/z/f1.txt",
                              "CREATE /w/hl.txt", "ATTRIB /w/z/f1.txt"}));
  // Renamed, f1.txt becomes the newest link: hl.txt is the oldest now.
  fs_.Rename(z, "f1.txt", z, "f2.txt");
  fs_.Touch(f, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"MOVED_FROM /w/z/f1.txt", "MOVED_TO /w/z/f2.txt", "ATTRIB /w/hl.txt"}));
  fs_.Unlink(w, "hl.txt");
  fs_.Touch(f, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"DELETE /w/hl.txt", "ATTRIB /w/z/f2.txt"}));
}

// A collector started after the links were made (a cold cache) names the same link.
TEST_F(ResolverTest, NamelessRecordsOfAHardLinkedFileAreAtItsOldestLinkWithAColdCache) {
  Make();
  auto w = fs_.Mkdir(kRootFid, "w", false);
  auto z = fs_.Mkdir(w, "z", false);
  auto f = fs_.Create(z, "f1.txt", false);
  fs_.Link(f, w, "hl.txt");
  fs_.Touch(f, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"CREATE /w/hl.txt", "ATTRIB /w/z/f1.txt"}));
}

TEST_F(ResolverTest, RenamedDirectoryKeepsDescendantPaths) {
  Make();
  auto a = fs_.Mkdir(kRootFid, "a");
  auto b = fs_.Mkdir(a, "b");
  auto f = fs_.Create(b, "f");
  Resolve();
  fs_.Rename(kRootFid, "a", kRootFid, "z");
  fs_.Touch(f, CL_MTIME);
  fs_.Create(b, "g");
  EXPECT_EQ(Resolve(),
            (Lines{"MOVED_FROM,ISDIR /a", "MOVED_TO,ISDIR /z", "MODIFY /z/b/f", "CREATE /z/b/g"}));
  EXPECT_EQ(fs_.fid2path_calls, 0);
  EXPECT_NE(events_[0].cookie, 0u);
  EXPECT_EQ(events_[0].cookie, events_[1].cookie);
}

// A directory's path is noted once and reused by the records that follow, until a directory
// changes: within one batch, renames above it and its own removal are followed.
TEST_F(ResolverTest, NotedDirectoryPathsFollowRenamesAndRemovalsWithinABatch) {
  Make();
  auto a = fs_.Mkdir(kRootFid, "a");
  auto b = fs_.Mkdir(a, "b");
  auto c = fs_.Mkdir(b, "c");
  auto f = fs_.Create(c, "f");
  fs_.Touch(f, CL_MTIME);
  fs_.Rename(kRootFid, "a", kRootFid, "z");
  fs_.Touch(f, CL_MTIME);
  fs_.Create(c, "g");
  fs_.Rename(c, "g", c, "h");  // a file renamed: the noted directory paths stay
  fs_.Touch(f, CL_CLOSE);
  fs_.Rename(a, "b", kRootFid, "y");
  fs_.Touch(f, CL_SETATTR);
  fs_.Unlink(c, "f");
  fs_.Unlink(c, "h");
  fs_.Rmdir(b, "c");
  auto c2 = fs_.Mkdir(b, "c");
  fs_.Create(c2, "f");
  EXPECT_EQ(Resolve(),
            (Lines{"CREATE,ISDIR /a", "CREATE,ISDIR /a/b", "CREATE,ISDIR /a/b/c", "CREATE /a/b/c/f",
                   "MODIFY /a/b/c/f", "MOVED_FROM,ISDIR /a", "MOVED_TO,ISDIR /z", "MODIFY /z/b/c/f",
                   "CREATE /z/b/c/g", "MOVED_FROM /z/b/c/g", "MOVED_TO /z/b/c/h", "CLOSE_WRITE /z/b/c/f",
                   "MOVED_FROM,ISDIR /z/b", "MOVED_TO,ISDIR /y", "ATTRIB /y/c/f", "DELETE /y/c/f",
                   "DELETE /y/c/h", "DELETE,ISDIR /y/c", "CREATE,ISDIR /y/c", "CREATE /y/c/f"}));
  EXPECT_EQ(fs_.fid2path_calls, 0);
}

TEST_F(ResolverTest, RenamedDirectoryRewritesPathsLearnedFromFid2Path) {
  Make();
  auto p = fs_.Mkdir(kRootFid, "p", false);
  auto q = fs_.Mkdir(p, "q", false);
  auto f = fs_.Create(q, "file", false);
  fs_.Touch(f, CL_MTIME);
  fs_.Touch(q, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"MODIFY /p/q/file", "ATTRIB /p/q"}));
  const int calls = fs_.fid2path_calls;
  fs_.Rename(kRootFid, "p", kRootFid, "r");
  fs_.Touch(f, CL_MTIME);
  fs_.Touch(q, CL_SETATTR);
  // p was never seen as a directory (only its descendants were, through fid2path): no ISDIR.
  EXPECT_EQ(Resolve(), (Lines{"MOVED_FROM /p", "MOVED_TO /r", "MODIFY /r/q/file", "ATTRIB /r/q"}));
  // The cached paths below p were rewritten: no new fid2path call.
  EXPECT_EQ(fs_.fid2path_calls, calls);
}

TEST_F(ResolverTest, RemovedDirectoryIsForgotten) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d", false);
  auto f = fs_.Create(d, "f", false);
  fs_.Touch(d, CL_SETATTR);
  fs_.Touch(f, CL_MTIME);
  Resolve();
  const size_t cached = resolver_->cache().size();
  ASSERT_GE(cached, 2u);
  fs_.Unlink(d, "f");
  fs_.Rmdir(kRootFid, "d");
  EXPECT_EQ(Resolve(), (Lines{"DELETE /d/f", "DELETE,ISDIR /d"}));
  EXPECT_EQ(resolver_->cache().size(), cached - 2);
  // A new directory of the same name is a new object: nothing stale is reported for it.
  auto d2 = fs_.Mkdir(kRootFid, "d");
  fs_.Create(d2, "f");
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /d", "CREATE /d/f"}));
}

TEST_F(ResolverTest, RemovalOfUncachedTreeIsPlacedByTheBatchItself) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d", false);
  auto e = fs_.Mkdir(d, "e", false);
  fs_.Create(e, "f", false);
  // rm -rf d: by the time the records are read, nothing of d exists any more.
  fs_.Unlink(e, "f");
  fs_.Rmdir(d, "e");
  fs_.Rmdir(kRootFid, "d");
  EXPECT_EQ(Resolve(), (Lines{"DELETE /d/e/f", "DELETE,ISDIR /d/e", "DELETE,ISDIR /d"}));
  EXPECT_EQ(resolver_->counters().parent_removed, 0u);
}

TEST_F(ResolverTest, ParentRemovedWhenNothingResolves) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d", false);
  fs_.Create(d, "f", false);
  fs_.Unlink(d, "f");
  fs_.Rmdir(kRootFid, "d", false);  // its record comes in a later batch
  EXPECT_EQ(Resolve(), (Lines{"DELETE,PARENT_REMOVED /"}));
  EXPECT_EQ(resolver_->counters().parent_removed, 1u);
  auto attrs = nlohmann::json::parse(events_[0].attrs);
  EXPECT_EQ(attrs["name"], "f");
  EXPECT_EQ(attrs["pfid"], lustre::FormatFid(d));
  EXPECT_EQ(events_[0].path, kMount);
}

TEST_F(ResolverTest, NameThatIsNotUtf8InAttrsIsValidJsonWithItsBytesInNameB64) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d", false);
  fs_.Create(d, "f\xff", false);
  fs_.Unlink(d, "f\xff");
  fs_.Rmdir(kRootFid, "d", false);
  ASSERT_EQ(Resolve(), (Lines{"DELETE,PARENT_REMOVED /"}));
  auto attrs = nlohmann::json::parse(events_[0].attrs);  // throws on invalid UTF-8
  EXPECT_EQ(attrs["name"], "f\xef\xbf\xbd");
  EXPECT_EQ(attrs["name_b64"], "Zv8=");
}

TEST_F(ResolverTest, ObjectGoneBeforeItCouldBePlacedIsReportedByFid) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d", false);
  auto f = fs_.Create(d, "f", false);   // created before the changelog was read
  fs_.Touch(f, CL_MTIME);
  fs_.Unlink(d, "f", false);            // gone, and its record not in this batch
  EXPECT_EQ(Resolve(), (Lines{"MODIFY /.lustre/fid/" + lustre::FormatFid(f)}));
  EXPECT_EQ(resolver_->counters().unresolved, 1u);
  EXPECT_EQ(nlohmann::json::parse(events_[0].attrs)["fid"], lustre::FormatFid(f));
}

TEST_F(ResolverTest, CreationInADirectoryGoneSinceIsReportedByTheParentsFid) {
  Make();
  auto d = fs_.Mkdir(kRootFid, "d", false);
  fs_.Create(d, "f");
  fs_.Unlink(d, "f", false);
  fs_.Rmdir(kRootFid, "d", false);
  EXPECT_EQ(Resolve(), (Lines{"CREATE /.lustre/fid/" + lustre::FormatFid(d) + "/f"}));
  EXPECT_EQ(resolver_->counters().unresolved, 1u);
}

TEST_F(ResolverTest, ObjectReportedByFidIsOutsideASubtreeRoot) {
  Make(1000, {std::string(kMount) + "/d"});
  auto d = fs_.Mkdir(kRootFid, "d", false);
  auto f = fs_.Create(d, "f", false);
  fs_.Touch(f, CL_MTIME);
  fs_.Unlink(d, "f", false);
  EXPECT_EQ(Resolve(), Lines{});
  EXPECT_EQ(resolver_->counters().unresolved, 1u);
}

TEST_F(ResolverTest, HardLinksAreReportedThroughTheParentTheRecordNames) {
  Make();
  auto a = fs_.Mkdir(kRootFid, "a");
  auto b = fs_.Mkdir(kRootFid, "b");
  auto f = fs_.Create(a, "f");
  fs_.Link(f, b, "g");
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /a", "CREATE,ISDIR /b", "CREATE /a/f", "CREATE /b/g"}));
  fs_.Unlink(a, "f");
  // A record naming its parent and name is placed there; one with only the FID goes
  // wherever the object still is.
  ChangelogRecord close = fs_.Record(CL_CLOSE, f, b, "g");
  fs_.Log(close);
  fs_.Touch(f, CL_MTIME);
  EXPECT_EQ(Resolve(), (Lines{"DELETE /a/f", "CLOSE_WRITE /b/g", "MODIFY /b/g"}));
}

TEST_F(ResolverTest, RenameOverATargetDeletesTheTarget) {
  Make();
  auto a = fs_.Create(kRootFid, "a");
  fs_.Create(kRootFid, "b");
  Resolve();
  fs_.Rename(kRootFid, "a", kRootFid, "b");
  EXPECT_EQ(Resolve(), (Lines{"DELETE /b", "MOVED_FROM /a", "MOVED_TO /b"}));
  EXPECT_EQ(events_[1].cookie, events_[2].cookie);
  EXPECT_EQ(nlohmann::json::parse(events_[1].attrs)["fid"], lustre::FormatFid(a));
  fs_.Touch(a, CL_MTIME);
  EXPECT_EQ(Resolve(), (Lines{"MODIFY /b"}));
}

TEST_F(ResolverTest, RenameAcrossTheRootsEdgeGivesOnlyTheHalfInside) {
  Make(1000, {std::string(kMount) + "/in"});
  auto in = fs_.Mkdir(kRootFid, "in");
  auto out = fs_.Mkdir(kRootFid, "out");
  fs_.Create(in, "f");
  fs_.Create(out, "g");
  EXPECT_EQ(Resolve(), (Lines{"CREATE /f"}));
  fs_.Rename(in, "f", out, "f");
  fs_.Rename(out, "g", in, "g");
  EXPECT_EQ(Resolve(), (Lines{"MOVED_FROM /f", "MOVED_TO /g"}));
  EXPECT_EQ(events_[0].cookie, 0u);
  EXPECT_EQ(events_[1].cookie, 0u);
}

TEST_F(ResolverTest, NonRecursiveRootReportsOnlyItsEntries) {
  Make(1000, {kMount}, false);
  auto d = fs_.Mkdir(kRootFid, "d");
  fs_.Create(d, "f");
  fs_.Touch(lustre::kRootFid, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /d", "ATTRIB,ISDIR /"}));
}

TEST_F(ResolverTest, WithoutCacheEveryObjectRecordCallsFid2Path) {
  Make(0);
  auto d = fs_.Mkdir(kRootFid, "d");
  auto f = fs_.Create(d, "f");
  fs_.Touch(f, CL_MTIME);
  fs_.Touch(f, CL_MTIME);
  fs_.Rename(d, "f", d, "g");
  fs_.Touch(f, CL_MTIME);
  // Records before the rename are placed where the rename says the file was then.
  EXPECT_EQ(Resolve(), (Lines{"CREATE,ISDIR /d", "CREATE /d/f", "MODIFY /d/f", "MODIFY /d/f",
                              "MOVED_FROM /d/f", "MOVED_TO /d/g", "MODIFY /d/g"}));
  EXPECT_EQ(resolver_->cache().size(), 0u);
  EXPECT_GE(fs_.fid2path_calls, 4);
}

TEST_F(ResolverTest, EveryRecordTypeMapsToItsKind) {
  Make();
  auto f = fs_.Create(kRootFid, "f", false);
  auto d = fs_.Mkdir(kRootFid, "d");
  Resolve();
  struct Case {
    uint32_t type;
    std::string line;  // "" : no event
  };
  const std::vector<Case> cases = {
      {CL_MARK, ""},
      {CL_EXT, ""},
      {CL_OPEN, "OPEN /f"},
      {CL_CLOSE, "CLOSE_WRITE /f"},
      {CL_LAYOUT, ""},
      {CL_TRUNC, "MODIFY /f"},
      {CL_SETATTR, "ATTRIB /f"},
      {CL_SETXATTR, "ATTRIB /f"},
      {CL_HSM, ""},
      {CL_MTIME, "MODIFY /f"},
      {CL_CTIME, "ATTRIB /f"},
      {CL_ATIME, "ACCESS /f"},
      {CL_MIGRATE, ""},
      {CL_FLRW, ""},
      {CL_RESYNC, ""},
      {CL_GETXATTR, ""},
      {CL_DN_OPEN, ""},
  };
  for (const auto& c : cases) {
    fs_.Touch(f, c.type);
    Lines expected;
    if (!c.line.empty()) expected.push_back(c.line);
    EXPECT_EQ(Resolve(), expected) << "type " << c.type;
  }
  EXPECT_EQ(resolver_->counters().ignored, 9u);
  // The namespace types.
  auto n = fs_.Record(CL_SOFTLINK, lustre::Fid{0x200000400, 900, 0}, kRootFid, "sl");
  auto m = fs_.Record(CL_MKNOD, lustre::Fid{0x200000400, 901, 0}, kRootFid, "node");
  fs_.Log(n);
  fs_.Log(m);
  fs_.Touch(d, CL_SETATTR);
  EXPECT_EQ(Resolve(), (Lines{"CREATE /sl", "CREATE /node", "ATTRIB,ISDIR /d"}));
  auto g = fs_.Create(kRootFid, "g");
  fs_.Link(g, d, "h");
  fs_.Unlink(d, "h");
  fs_.Mkdir(d, "sub");
  fs_.Rmdir(d, "sub");
  fs_.Rename(kRootFid, "g", d, "g2");
  EXPECT_EQ(Resolve(), (Lines{"CREATE /g", "CREATE /d/h", "DELETE /d/h", "CREATE,ISDIR /d/sub",
                              "DELETE,ISDIR /d/sub", "MOVED_FROM /g", "MOVED_TO /d/g2"}));
}

TEST_F(ResolverTest, KindsNotWantedAreNotResolved) {
  Make(1000, {}, true, kind::kDefault);
  auto f = fs_.Create(kRootFid, "f", false);
  fs_.Touch(f, CL_OPEN);
  fs_.Touch(f, CL_ATIME);
  EXPECT_EQ(Resolve(), Lines{});
  EXPECT_EQ(fs_.fid2path_calls, 0);
}

TEST_F(ResolverTest, UnknownAndIncompleteRecordsAreCountedNotReported) {
  Make();
  fs_.Log(fs_.Record(77, lustre::Fid{0x200000400, 5, 0}, kRootFid, "x"));
  fs_.Log(fs_.Record(CL_CREATE, lustre::Fid{0x200000400, 6, 0}, lustre::Fid{}, "x"));
  ChangelogRecord rename = fs_.Record(CL_RENAME, lustre::Fid{}, kRootFid, "x");  // no extension
  fs_.Log(rename);
  fs_.Create(kRootFid, "after");
  EXPECT_EQ(Resolve(), (Lines{"CREATE /after"}));
  EXPECT_EQ(resolver_->counters().unknown, 3u);
  EXPECT_EQ(resolver_->counters().records, 4u);
}

TEST_F(ResolverTest, AttrsCarryTheRecordFields) {
  Make();
  auto f = fs_.Create(kRootFid, "f");
  Resolve();
  ASSERT_EQ(events_.size(), 1u);
  auto a = nlohmann::json::parse(events_[0].attrs);
  EXPECT_EQ(a["fid"], lustre::FormatFid(f));
  EXPECT_EQ(a["pfid"], "[0x200000007:0x1:0x0]");
  EXPECT_EQ(a["mdt"], 0);
  EXPECT_EQ(a["recno"], 1);
  EXPECT_EQ(a["type"], "CREAT");
  EXPECT_EQ(a["flags"], 0);
  EXPECT_EQ(a["uid"], 1000);
  EXPECT_EQ(a["gid"], 100);
  EXPECT_EQ(a["jobid"], "touch.0");
  EXPECT_EQ(a["nid"], "0@lo");
  EXPECT_EQ(events_[0].ts_ns, 1700000000000000001);
}

TEST_F(ResolverTest, AttrsEscapeJobids) {
  Make();
  ChangelogRecord r = fs_.Record(CL_CREATE, lustre::Fid{0x200000400, 7, 0}, kRootFid, "f");
  r.jobid = "a\"b\\c\x01";
  fs_.Log(r);
  Resolve();
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(events_[0].attrs)["jobid"], "a\"b\\c\x01");
}

}  // namespace
}  // namespace fathom::lustre_source
