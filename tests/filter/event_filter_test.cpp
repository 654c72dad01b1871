#include "fathom/filter.h"

#include <gtest/gtest.h>

namespace fathom {
namespace {

Event At(const std::string& path, uint32_t mask = kind::kCreate) {
  Event e;
  e.mask = mask;
  e.root = "/r";
  e.path = path;
  return e;
}

TEST(EventFilter, PassesOnlyWantedKindsButAlwaysOverflow) {
  FilterOptions o;
  o.kinds = kind::kDelete;
  EventFilter f(o);
  EXPECT_FALSE(f.Matches(At("/r/a", kind::kCreate)));
  EXPECT_TRUE(f.Matches(At("/r/a", kind::kDelete | kind::kIsDir)));
  EXPECT_TRUE(f.Matches(At("/r", kind::kOverflow)));
}

TEST(EventFilter, GlobWithoutSlashMatchesTheFileName) {
  FilterOptions o;
  o.exclude = {"*.tmp"};
  EventFilter f(o);
  EXPECT_FALSE(f.Matches(At("/r/dir/x.tmp")));
  EXPECT_TRUE(f.Matches(At("/r/x.tmp.keep")));
}

TEST(EventFilter, GlobWithSlashIsMatchedAgainstTheRootRelativePath) {
  FilterOptions o;
  o.include = {"data/*"};
  EventFilter f(o);
  EXPECT_TRUE(f.Matches(At("/r/data/deep/file.h5")));
  EXPECT_TRUE(f.Matches(At("/r/data/file.h5")));
  EXPECT_FALSE(f.Matches(At("/r/other/file.h5")));
  EXPECT_FALSE(f.Matches(At("/r/other/data/file.h5")));
}

TEST(EventFilter, ExcludingADirectoryExcludesEverythingBelowIt) {
  FilterOptions o;
  o.exclude = {"scratch"};
  EventFilter f(o);
  EXPECT_FALSE(f.Matches(At("/r/scratch", kind::kCreate | kind::kIsDir)));
  EXPECT_FALSE(f.Matches(At("/r/scratch/a/b.h5")));
  EXPECT_TRUE(f.Matches(At("/r/scratchpad/b.h5")));
  EXPECT_TRUE(f.ExcludesDirectory({"/r"}, "/r/x/scratch"));
  EXPECT_FALSE(f.ExcludesDirectory({"/r"}, "/r/x"));
  EXPECT_FALSE(f.ExcludesDirectory({"/r"}, "/r"));
  EXPECT_FALSE(f.ExcludesDirectory({"/r"}, "/other/scratch"));
}

TEST(EventFilter, GlobsApplyBelowEachEventsOwnRoot) {
  FilterOptions o;
  o.include = {"sub/*"};
  EventFilter f(o);
  Event e = At("/data/sub/a");
  e.root = "/data";
  EXPECT_TRUE(f.Matches(e));
  e.root = "/";
  EXPECT_FALSE(f.Matches(e));
  e.path = "/sub/a";
  EXPECT_TRUE(f.Matches(e));
}

TEST(EventFilter, ExcludedDirectoryIsJudgedBelowTheOutermostRootAsRecursiveEventsAre) {
  FilterOptions o;
  o.exclude = {"/in/*"};
  EventFilter f(o);
  EXPECT_TRUE(f.ExcludesDirectory({"/r/w", "/r"}, "/r/in/x"));
  EXPECT_FALSE(f.ExcludesDirectory({"/r/w", "/r"}, "/r/w/in/x"));
}

TEST(EventFilter, EventsAboutARootItselfAreNotSubjectToGlobs) {
  FilterOptions o;
  o.include = {"*.h5"};
  EventFilter f(o);
  EXPECT_TRUE(f.Matches(At("/r", kind::kDeleteSelf)));
}

TEST(EventFilter, ExcludeWinsOverInclude) {
  FilterOptions o;
  o.include = {"*.h5"};
  o.exclude = {"scratch/*"};
  EventFilter f(o);
  EXPECT_TRUE(f.Matches(At("/r/run/a.h5")));
  EXPECT_FALSE(f.Matches(At("/r/scratch/a.h5")));
  EXPECT_FALSE(f.Matches(At("/r/run/a.txt")));
}

TEST(EventFilter, IgnoresTheStoresOwnFiles) {
  FilterOptions o;
  o.ignore_paths = {"/r/events.db", "/r/events.db-wal"};
  EventFilter f(o);
  EXPECT_FALSE(f.Matches(At("/r/events.db-wal", kind::kModify)));
  EXPECT_TRUE(f.Matches(At("/r/events.db.txt", kind::kModify)));
}

}  // namespace
}  // namespace fathom
