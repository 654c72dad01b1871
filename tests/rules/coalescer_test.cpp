// Coalescer: settling, max_wait, sentinels, cancelling, collapsing, batching, the cursor's
// bound and the bound on what is held, with exact groups.
#include <gtest/gtest.h>

#include "rules/coalescer.h"

namespace fathom::rules {
namespace {

constexpr int64_t kS = 1'000'000'000;

Event E(uint64_t id, int64_t t_s, uint32_t mask, std::string path) {
  Event e;
  e.id = id;
  e.ts_ns = t_s * kS;
  e.mask = mask;
  e.path = std::move(path);
  return e;
}

// "rule key: id:KIND:path ... [ids]" per group.
std::vector<std::string> Take(Coalescer& c, int64_t now_s) {
  std::vector<Group> out;
  c.TakeReady(now_s * kS, out);
  std::vector<std::string> lines;
  for (const Group& g : out) {
    std::string l = std::to_string(g.rule) + " " + g.key + ":";
    for (const Event& e : g.events) l += " " + std::to_string(e.id) + ":" + KindNames(e.mask) + ":" + e.path;
    l += " [";
    for (size_t i = 0; i < g.ids.size(); ++i) l += (i ? "," : "") + std::to_string(g.ids[i]);
    lines.push_back(l + "]");
  }
  return lines;
}

using Lines = std::vector<std::string>;

Coalescing Settle(int64_t settle_s, int64_t max_wait_s = 0) {
  Coalescing c;
  c.settle_ns = settle_s * kS;
  c.max_wait_ns = max_wait_s * kS;
  return c;
}
Coalescing Sentinel(std::string glob) {
  Coalescing c;
  c.sentinel = std::move(glob);
  return c;
}
Coalescing Batch(size_t max, int64_t wait_s) {
  Coalescing c;
  c.batch_max = max;
  c.batch_wait_ns = wait_s * kS;
  return c;
}

TEST(CoalescerTest, WithoutSettlingEachEventIsAGroupAtOnce) {
  Coalescer c({Coalescing{}});
  c.Add(0, E(1, 0, kind::kCreate, "/a"));
  c.Add(0, E(2, 0, kind::kCreate, "/b"));
  EXPECT_EQ(c.HeldFrom(), 1u);
  EXPECT_EQ(Take(c, 0), (Lines{"0 /a: 1:CREATE:/a [1]", "0 /b: 2:CREATE:/b [2]"}));
  EXPECT_EQ(c.HeldFrom(), std::nullopt);
}

TEST(CoalescerTest, ASettledPathFiresOnceQuietAndRepeatedKindsCollapseKeepingEveryId) {
  Coalescer c({Settle(5)});
  c.Add(0, E(1, 0, kind::kCreate, "/a"));
  c.Add(0, E(2, 1, kind::kModify, "/a"));
  c.Add(0, E(3, 2, kind::kModify, "/a"));
  c.Add(0, E(4, 2, kind::kCloseWrite, "/a"));
  EXPECT_EQ(c.NextDue(), 7 * kS);
  EXPECT_EQ(Take(c, 6), Lines{});
  EXPECT_EQ(c.HeldFrom(), 1u);
  EXPECT_EQ(Take(c, 7), (Lines{"0 /a: 1:CREATE:/a 3:MODIFY:/a 4:CLOSE_WRITE:/a [1,2,3,4]"}));
  EXPECT_EQ(c.held(), 0u);
}

TEST(CoalescerTest, MaxWaitFiresAPathThatNeverGetsQuiet) {
  Coalescer c({Settle(5, 10)});
  for (uint64_t i = 0; i < 10; ++i) c.Add(0, E(i + 1, static_cast<int64_t>(i), kind::kModify, "/busy"));
  EXPECT_EQ(Take(c, 9), Lines{});
  EXPECT_EQ(Take(c, 10), (Lines{"0 /busy: 10:MODIFY:/busy [1,2,3,4,5,6,7,8,9,10]"}));
}

TEST(CoalescerTest, ACreateAndADeleteWhileHeldCancelOut) {
  Coalescer c({Settle(5)});
  c.Add(0, E(1, 0, kind::kCreate, "/tmp1"));
  c.Add(0, E(2, 1, kind::kCloseWrite, "/tmp1"));
  c.Add(0, E(3, 2, kind::kDelete, "/tmp1"));
  c.Add(0, E(4, 2, kind::kMovedTo, "/t2"));
  c.Add(0, E(5, 3, kind::kMovedFrom, "/t2"));
  EXPECT_EQ(c.held(), 0u);
  EXPECT_EQ(c.cancelled(), 5u);
  EXPECT_EQ(c.HeldFrom(), std::nullopt);
  EXPECT_EQ(Take(c, 100), Lines{});
  // A delete of a path held without its creation is delivered.
  c.Add(0, E(6, 4, kind::kModify, "/old"));
  c.Add(0, E(7, 4, kind::kDelete, "/old"));
  EXPECT_EQ(Take(c, 100), (Lines{"0 /old: 6:MODIFY:/old 7:DELETE:/old [6,7]"}));
}

TEST(CoalescerTest, ASentinelReleasesItsDirectorysEventsTogether) {
  Coalescer c({Sentinel("*.done")});
  c.Add(0, E(1, 0, kind::kCloseWrite, "/run/a.h5"));
  c.Add(0, E(2, 1, kind::kCloseWrite, "/other/c.h5"));
  c.Add(0, E(3, 1, kind::kCloseWrite, "/run/b.h5"));
  EXPECT_EQ(Take(c, 1000), Lines{});
  c.Add(0, E(4, 2, kind::kCloseWrite, "/run/x.done"));
  EXPECT_EQ(Take(c, 2), (Lines{"0 /run: 1:CLOSE_WRITE:/run/a.h5 3:CLOSE_WRITE:/run/b.h5 4:CLOSE_WRITE:/run/x.done [1,3,4]"}));
  EXPECT_EQ(c.HeldFrom(), 2u);
  // A sentinel's deletion does not release.
  c.Add(0, E(5, 3, kind::kDelete, "/other/y.done"));
  EXPECT_EQ(Take(c, 1000), Lines{});
}

TEST(CoalescerTest, ReadyGroupsOfARuleAreBatchedByCountAndTime) {
  Coalescer c({Batch(3, 10), Coalescing{}});
  for (uint64_t i = 1; i <= 5; ++i) c.Add(0, E(i, 0, kind::kCreate, "/f" + std::to_string(i)));
  c.Add(1, E(6, 0, kind::kCreate, "/g"));
  EXPECT_EQ(Take(c, 0), (Lines{"0 /f1: 1:CREATE:/f1 2:CREATE:/f2 3:CREATE:/f3 [1,2,3]", "1 /g: 6:CREATE:/g [6]"}));
  EXPECT_EQ(c.HeldFrom(), 4u) << "a batch waiting to fill holds the cursor";
  EXPECT_EQ(c.NextDue(), 10 * kS);
  EXPECT_EQ(Take(c, 9), Lines{});
  EXPECT_EQ(Take(c, 10), (Lines{"0 /f4: 4:CREATE:/f4 5:CREATE:/f5 [4,5]"}));
}

TEST(CoalescerTest, PastMaxHeldTheOldestGroupsAreHandedOutEarlyNeverDropped) {
  Coalescer c({Settle(60)}, 4);
  for (uint64_t i = 1; i <= 10; ++i) c.Add(0, E(i, 0, kind::kCreate, "/p" + std::to_string(i)));
  Lines early = Take(c, 1);
  EXPECT_EQ(early.size(), 6u);
  EXPECT_EQ(early.front(), "0 /p1: 1:CREATE:/p1 [1]");
  EXPECT_EQ(early.back(), "0 /p6: 6:CREATE:/p6 [6]");
  EXPECT_EQ(c.held(), 4u);
  EXPECT_EQ(c.HeldFrom(), 7u);
  EXPECT_EQ(Take(c, 60).size(), 4u);
}

}  // namespace
}  // namespace fathom::rules
