// The fanotify source's pure parts: the directory path cache and the splitting and ordering
// of merged kernel records. No kernel involved.
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "sources/fanotify/dir_path_cache.h"
#include "sources/fanotify/event_plan.h"
#include "sources/fanotify/mount_table.h"
#include "sources/fanotify/writer_attrs.h"

namespace fathom::fanotify_internal {
namespace {

HandleKey Key(const std::string& id) {
  const char fsid[kFsidBytes] = {1, 2, 3, 4, 5, 6, 7, 8};
  return MakeHandleKey(fsid, 1, id.data(), id.size());
}

TEST(MountTable, ParsesMountPointsWithEscapesTypesAndSourcesPastOptionalFields) {
  const auto mounts = ParseMountInfo(
      "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
      "36 22 0:40 / /data/with\\040space rw,nosuid shared:2 master:1 - tmpfs my\\011tmp rw\n"
      "37 22 0:41 /sub /mnt/bind rw - fuse.sshfs user@host:/x rw,user_id=0\n"
      "garbage line\n");
  ASSERT_EQ(mounts.size(), 3u);
  EXPECT_EQ(mounts[0].mount_point, "/");
  EXPECT_EQ(mounts[0].fs_type, "ext4");
  EXPECT_EQ(mounts[0].source, "/dev/vda");
  EXPECT_EQ(mounts[1].mount_point, "/data/with space");
  EXPECT_EQ(mounts[1].fs_type, "tmpfs");
  EXPECT_EQ(mounts[1].source, "my\ttmp");
  EXPECT_EQ(mounts[2].mount_point, "/mnt/bind");
  EXPECT_EQ(mounts[2].fs_type, "fuse.sshfs");
  EXPECT_EQ(mounts[2].source, "user@host:/x");
}

TEST(DirPathCache, EvictsTheLeastRecentlyUsedEntryButNeverAPinnedOne) {
  DirPathCache cache(2);
  cache.Pin(Key("root"), "/r");
  cache.Learn(Key("a"), Key("root"), "a");
  cache.Learn(Key("b"), Key("root"), "b");
  ASSERT_NE(cache.Find(Key("a")), nullptr);  // a is now more recent than b
  cache.Learn(Key("c"), Key("root"), "c");
  EXPECT_EQ(cache.Find(Key("b")), nullptr);
  EXPECT_NE(cache.Find(Key("a")), nullptr);
  EXPECT_NE(cache.Find(Key("c")), nullptr);
  ASSERT_NE(cache.Find(Key("root")), nullptr);
  EXPECT_EQ(cache.Find(Key("root"))->path, "/r");
  EXPECT_EQ(cache.size(), 2u);
}

TEST(DirPathCache, RenameRewritesAbsoluteEntriesBelowTheOldPathOnly) {
  DirPathCache cache(16);
  cache.Pin(Key("root"), "/r");
  cache.StoreAbsolute(Key("x"), "/r/a/x");
  cache.StoreAbsolute(Key("y"), "/r/a/x/y");
  cache.StoreAbsolute(Key("z"), "/r/a-z");  // shares "/r/a" as a string prefix only
  cache.StoreAbsolute(Key("a"), "/r/a");
  cache.Moved(Key("a"), Key("root"), "b", "/r/a", "/r/b");
  EXPECT_EQ(cache.Find(Key("x"))->path, "/r/b/x");
  EXPECT_EQ(cache.Find(Key("y"))->path, "/r/b/x/y");
  EXPECT_EQ(cache.Find(Key("z"))->path, "/r/a-z");
  const DirPathCache::Entry* a = cache.Find(Key("a"));
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->absolute);
  EXPECT_EQ(a->parent, Key("root"));
  EXPECT_EQ(a->name, "b");
}

TEST(DirPathCache, ForgettingADirectoryDropsAbsoluteEntriesBelowIt) {
  DirPathCache cache(16);
  cache.StoreAbsolute(Key("a"), "/r/a");
  cache.StoreAbsolute(Key("x"), "/r/a/x");
  cache.StoreAbsolute(Key("z"), "/r/a-z");
  cache.Forget(Key("a"), "/r/a");
  EXPECT_EQ(cache.Find(Key("a")), nullptr);
  EXPECT_EQ(cache.Find(Key("x")), nullptr);
  EXPECT_NE(cache.Find(Key("z")), nullptr);
}

RawRecord Rec(uint64_t mask, const std::string& dir, const std::string& name,
              const std::string& object) {
  RawRecord r;
  r.mask = mask;
  r.pid = 42;
  if (!dir.empty()) r.dir = Key(dir);
  r.name = name;
  if (!object.empty()) r.object = Key(object);
  return r;
}

std::vector<std::pair<size_t, uint32_t>> Singles(const std::vector<Step>& steps) {
  std::vector<std::pair<size_t, uint32_t>> out;
  for (const auto& s : steps)
    out.emplace_back(s.record, s.type == Step::Type::kSingle ? s.kind : 0);
  return out;
}

TEST(EventPlan, MergedMaskIsSplitInTheOrderThingsHappen) {
  std::deque<RawRecord> records = {
      Rec(FAN_CLOSE_WRITE | FAN_MODIFY | FAN_CREATE, "root", "f", "F")};
  std::vector<Step> steps;
  PlanSteps(records, 0, records.size(), steps);
  EXPECT_EQ(Singles(steps), (std::vector<std::pair<size_t, uint32_t>>{
                                {0, FAN_CREATE}, {0, FAN_MODIFY}, {0, FAN_CLOSE_WRITE}}));
}

TEST(EventPlan, MergedDirectoryRemovalComesAfterWhatHappenedInside) {
  std::deque<RawRecord> records = {
      Rec(FAN_CREATE | FAN_DELETE | FAN_ONDIR, "root", "okdir", "O"),  // rmdir merged into mkdir
      Rec(FAN_CREATE, "O", "f", "F"),
      Rec(FAN_DELETE, "O", "f", "F"),
      Rec(FAN_CREATE, "root", "later", "L"),
  };
  std::vector<Step> steps;
  PlanSteps(records, 0, records.size(), steps);
  EXPECT_EQ(
      Singles(steps),
      (std::vector<std::pair<size_t, uint32_t>>{
          {0, FAN_CREATE}, {1, FAN_CREATE}, {2, FAN_DELETE}, {0, FAN_DELETE}, {3, FAN_CREATE}}));
}

TEST(EventPlan, MovedFromIsPairedWithTheMovedToOfTheSameObject) {
  std::deque<RawRecord> records = {
      Rec(FAN_CREATE | FAN_MOVED_FROM, "root", "a", "F"),
      Rec(FAN_CREATE, "root", "other", "G"),
      Rec(FAN_MOVED_TO, "root", "b", "F"),
  };
  std::vector<Step> steps;
  PlanSteps(records, 0, records.size(), steps);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0], (Step{Step::Type::kSingle, FAN_CREATE, 0, 0}));
  EXPECT_EQ(steps[1], (Step{Step::Type::kSingle, FAN_CREATE, 1, 0}));
  EXPECT_EQ(steps[2], (Step{Step::Type::kMovePair, 0, 2, 0}));
}

TEST(WriterAttrs, ProcessGroupIsReadPastANameWithSpacesAndParentheses) {
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    prctl(PR_SET_NAME, "a) b (c) d", 0, 0, 0);
    const pid_t seen = ProcessGroupOf(getpid());
    (void)!write(report[1], &seen, sizeof seen);
    _exit(0);
  }
  pid_t seen = 0;
  ASSERT_EQ(read(report[0], &seen, sizeof seen), static_cast<ssize_t>(sizeof seen));
  waitpid(child, nullptr, 0);
  close(report[0]);
  close(report[1]);
  EXPECT_EQ(seen, child);
  EXPECT_EQ(ProcessGroupOf(getpid()), getpgrp());
  EXPECT_EQ(ProcessGroupOf(child), -1);  // gone
}

TEST(WriterAttrs, NameTheProcessAndItsGroupAndNothingWithoutAProcess) {
  WriterAttrs w;
  EXPECT_EQ(w.For(0, 1), "");
  EXPECT_EQ(w.For(getpid(), 1),
            "{\"pid\":" + std::to_string(getpid()) + ",\"pgid\":" + std::to_string(getpgrp()) + "}");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(w.For(child, 1), "{\"pid\":" + std::to_string(child) + "}");
}

}  // namespace
}  // namespace fathom::fanotify_internal
