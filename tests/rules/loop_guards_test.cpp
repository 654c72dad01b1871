// LoopGuards: who made an event (fanotify's pid and pgid against the runner's action
// processes, a rule's outputs), which rule leaves it alone, and what a delivery becomes:
// dead past max_cascade, delayed by a per-path rate limit (exact times), or the trip of a
// rule's breaker (once, and afresh after a resume).
#include "rules/loop_guards.h"

#include <gtest/gtest.h>

namespace fathom::rules {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

RuleSet Load(const std::string& yaml) {
  auto set = ParseRuleSet(yaml, "rules.yaml");
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? std::move(set).value() : RuleSet{};
}

const char* kRules = R"(max_cascade: 2
rules:
  - name: sum
    path: "/lab/**"
    outputs: ["**.sum"]
    rate_limit: {max: 2, per: 10s}
    breaker: {max: 3, per: 1min}
    action: {command: [/bin/true]}
  - name: copy
    path: "/lab/**"
    own_events: match
    action: {command: [/bin/true]}
)";

Event At(const std::string& path, const std::string& attrs, int64_t ts_ns) {
  Event e;
  e.path = path;
  e.attrs = attrs;
  e.ts_ns = ts_ns;
  return e;
}

TEST(LoopGuardsTest, WriterIsReadFromTheAttrsPidAndPgid) {
  EXPECT_EQ(WriterOf(At("/x", "{\"pid\":12,\"pgid\":10}", 0)).pid, 12);
  EXPECT_EQ(WriterOf(At("/x", "{\"pid\":12,\"pgid\":10}", 0)).pgid, 10);
  EXPECT_EQ(WriterOf(At("/x", "{\"pid\":12}", 0)).pgid, 0);
  EXPECT_EQ(WriterOf(At("/x", "{\"fid\":\"[0x1:0x2:0x0]\",\"pfid\":\"[0x3:0x4:0x0]\"}", 0)).pid, 0);
  EXPECT_EQ(WriterOf(At("/x", "", 0)).pid, 0);
}

TEST(LoopGuardsTest, AnActionsProcessGroupOrARulesOutputsMakeTheEventItsOwn) {
  const RuleSet set = Load(kRules);
  ActionProcesses processes;
  LoopGuards guards(set, processes);
  processes.Started(500, {"copy", "fd_1", 1}, 100 * kSecond);

  auto cause = guards.CauseOf(At("/lab/a", "{\"pid\":501,\"pgid\":500}", 100 * kSecond + 5));
  ASSERT_TRUE(cause);
  EXPECT_EQ(cause->rule, 1u);
  EXPECT_EQ(cause->depth, 1);
  EXPECT_EQ(cause->delivery, "fd_1");
  EXPECT_FALSE(guards.Ignores(0, *cause));  // not sum's own
  EXPECT_FALSE(guards.Ignores(1, *cause));  // copy says own_events: match
  // The action itself, with its group unknown (it exited before the event was read).
  EXPECT_TRUE(guards.CauseOf(At("/lab/a", "{\"pid\":500}", 100 * kSecond + 5)));
  // Another process, or a time long before the action started.
  EXPECT_FALSE(guards.CauseOf(At("/lab/a", "{\"pid\":77,\"pgid\":77}", 100 * kSecond)));
  EXPECT_FALSE(guards.CauseOf(At("/lab/a", "{\"pid\":500,\"pgid\":500}", 90 * kSecond)));
  // Ended: still its own for a minute, not after.
  processes.Ended(500, 101 * kSecond);
  EXPECT_TRUE(guards.CauseOf(At("/lab/a", "{\"pid\":500,\"pgid\":500}", 150 * kSecond)));
  EXPECT_FALSE(guards.CauseOf(At("/lab/a", "{\"pid\":500,\"pgid\":500}", 200 * kSecond)));

  cause = guards.CauseOf(At("/lab/deep/f.sum", "", 0));
  ASSERT_TRUE(cause);
  EXPECT_EQ(cause->rule, 0u);
  EXPECT_EQ(cause->depth, 0);
  EXPECT_TRUE(guards.Ignores(0, *cause));
  EXPECT_FALSE(guards.Ignores(1, *cause));
  EXPECT_FALSE(guards.CauseOf(At("/lab/deep/f.sums", "", 0)));
}

TEST(LoopGuardsTest, PastMaxCascadeADeliveryIsRecordedDeadWithTheReason) {
  const RuleSet set = Load(kRules);
  ActionProcesses processes;
  LoopGuards guards(set, processes);
  EXPECT_EQ(guards.Admit(1, "/lab/a", 2, 0).dead_reason, "");
  EXPECT_EQ(guards.Admit(1, "/lab/b", 3, 0).dead_reason,
            "not run: the event was caused by an action 3 actions deep, past max_cascade 2 (a loop of rules?); "
            "`fathom rules replay` runs it");
}

TEST(LoopGuardsTest, ARateLimitLetsABurstOfMaxThenOneEveryPerOverMaxPerPath) {
  const RuleSet set = Load(kRules);
  ActionProcesses processes;
  LoopGuards guards(set, processes);
  const int64_t t = 1000 * kSecond;
  // max 2 per 10 s: two at once, then one every 5 s.
  EXPECT_EQ(guards.Admit(0, "/lab/a", 0, t).not_before_ns, 0);
  EXPECT_EQ(guards.Admit(0, "/lab/a", 0, t).not_before_ns, 0);
  EXPECT_EQ(guards.Admit(0, "/lab/a", 0, t).not_before_ns, t + 5 * kSecond);
  EXPECT_EQ(guards.Admit(0, "/lab/a", 0, t + kSecond).not_before_ns, t + 10 * kSecond);
  EXPECT_EQ(guards.Admit(0, "/lab/b", 0, t + kSecond).not_before_ns, 0);  // another path
  EXPECT_EQ(guards.Admit(1, "/lab/a", 0, t).not_before_ns, 0);           // a rule without a limit
  // Quiet for long enough, the burst is allowed again.
  EXPECT_EQ(guards.Admit(0, "/lab/a", 0, t + 60 * kSecond).not_before_ns, 0);
  EXPECT_EQ(guards.Admit(0, "/lab/a", 0, t + 60 * kSecond).not_before_ns, 0);
}

TEST(LoopGuardsTest, TheBreakerTripsOnceWhenPastMaxAndCountsAfreshAfterAResume) {
  const RuleSet set = Load(kRules);
  ActionProcesses processes;
  LoopGuards guards(set, processes);
  const int64_t t = 1000 * kSecond;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(guards.Admit(0, "/lab/" + std::to_string(i), 0, t).trip, "") << i;
  EXPECT_EQ(guards.Admit(0, "/lab/3", 0, t).trip,
            "more than 3 deliveries within 60 s (breaker); its deliveries wait for `fathom rules resume sum`");
  EXPECT_EQ(guards.Admit(0, "/lab/4", 0, t).trip, "");  // once
  guards.SetPaused(0, true);
  EXPECT_EQ(guards.Admit(0, "/lab/5", 0, t).trip, "");
  guards.SetPaused(0, false);
  for (int i = 6; i < 9; ++i) EXPECT_EQ(guards.Admit(0, "/lab/" + std::to_string(i), 0, t).trip, "") << i;
  EXPECT_NE(guards.Admit(0, "/lab/9", 0, t).trip, "");
  // A new window: three more fit.
  guards.SetPaused(0, false);
  for (int i = 10; i < 13; ++i) EXPECT_EQ(guards.Admit(0, "/lab/" + std::to_string(i), 0, t + 61 * kSecond).trip, "");
}

TEST(LoopGuardsTest, TheRulesFileRefusesBadGuards) {
  auto bad = ParseRuleSet("rules:\n  - name: r\n    path: /a\n    own_events: skip\n    action: {command: [/bin/true]}\n",
                          "rules.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("own_events: expected ignore or match"), std::string::npos);
  bad = ParseRuleSet("rules:\n  - name: r\n    path: /a\n    breaker: {max: 3}\n    action: {command: [/bin/true]}\n",
                     "rules.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("breaker: expected {max: N, per: DURATION} or off"), std::string::npos);
  bad = ParseRuleSet("rules:\n  - name: r\n    path: /a\n    outputs: [relative]\n    action: {command: [/bin/true]}\n",
                     "rules.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("outputs"), std::string::npos);
  bad = ParseRuleSet("max_cascade: 0\nrules:\n  - name: r\n    path: /a\n    action: {command: [/bin/true]}\n",
                     "rules.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("max_cascade: expected a positive whole number"), std::string::npos);
}

}  // namespace
}  // namespace fathom::rules
