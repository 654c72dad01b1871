// The outbox on real SQLite files: recording across restarts, leases, outcomes and backoff,
// replays and purges, counts, and the file's identity.
#include "rules/outbox/outbox.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "rules/outbox/outbox_test_util.h"
#include "support/read_only_mount.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::IdOf;
using testing::MakeDelivery;

constexpr int64_t kSecond = 1'000'000'000;

std::unique_ptr<Outbox> OpenOrDie(const std::string& path, double jitter = 1.0) {
  OutboxOptions options;
  options.jitter = [jitter]() { return jitter; };
  auto outbox = Outbox::Open(path, std::move(options));
  EXPECT_TRUE(outbox.ok()) << outbox.status().message();
  return outbox.ok() ? std::move(outbox).value() : nullptr;
}

std::vector<std::string> Ids(const std::vector<Delivery>& deliveries) {
  std::vector<std::string> ids;
  for (const Delivery& d : deliveries) ids.push_back(d.id);
  return ids;
}

size_t CountAll(Outbox& outbox) {
  size_t n = 0;
  EXPECT_TRUE(outbox.List({}, std::nullopt, 0, [&](const Delivery&) { return ++n, true; }).ok());
  return n;
}

TEST(DeliveryIdTest, IsDeterministicAndDiffersForAnotherRuleVersionOrEvents) {
  const std::vector<uint64_t> ids = {1, 2, 3};
  const std::string id = DeliveryId("copy", "v1", ids);
  EXPECT_EQ(id, DeliveryId("copy", "v1", ids));
  ASSERT_EQ(id.size(), 3u + 32u);
  EXPECT_EQ(id.substr(0, 3), "fd_");
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 3), std::string::npos);
  std::set<std::string> all = {id};
  all.insert(DeliveryId("copy2", "v1", ids));
  all.insert(DeliveryId("copy", "v2", ids));
  all.insert(DeliveryId("copy", "v1", std::vector<uint64_t>{1, 2}));
  all.insert(DeliveryId("copy", "v1", std::vector<uint64_t>{1, 2, 4}));
  all.insert(DeliveryId("cop", "yv1", ids));  // the same bytes, split elsewhere
  EXPECT_EQ(all.size(), 6u);
}

TEST(OutboxTest, RecordingTheSameDeliveriesAfterARestartCreatesNothingTwice) {
  fathom::testing::TempDir dir;
  const std::string path = dir / "outbox.db";
  const std::vector<NewDelivery> batch = {MakeDelivery("copy", {1}, "/a"), MakeDelivery("copy", {2, 3}, "/b"),
                                          MakeDelivery("notify", {3}, "/b")};
  {
    auto outbox = OpenOrDie(path);
    ASSERT_TRUE(outbox);
    EXPECT_EQ(outbox->Cursor("runner").value(), 0u);
    ASSERT_TRUE(outbox->Record(batch, "runner", 3).ok());
  }
  auto outbox = OpenOrDie(path);
  ASSERT_TRUE(outbox);
  EXPECT_EQ(outbox->Cursor("runner").value(), 3u);
  EXPECT_EQ(outbox->Cursor("other").value(), 0u);
  ASSERT_TRUE(outbox->Record(batch, "runner", 3).ok());
  EXPECT_EQ(CountAll(*outbox), 3u);
  // A cursor never moves backwards.
  ASSERT_TRUE(outbox->Record({}, "runner", 2).ok());
  EXPECT_EQ(outbox->Cursor("runner").value(), 3u);
  ASSERT_TRUE(outbox->Record({}, "runner", 7).ok());
  EXPECT_EQ(outbox->Cursor("runner").value(), 7u);

  auto got = outbox->Get(IdOf(batch[1]));
  ASSERT_TRUE(got.ok() && got->has_value());
  const Delivery& d = **got;
  EXPECT_EQ(d.rule, "copy");
  EXPECT_EQ(d.rule_version, "v1");
  EXPECT_EQ(d.path, "/b");
  EXPECT_EQ(d.payload, batch[1].payload);
  EXPECT_EQ(d.event_ids, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(d.state, DeliveryState::kPending);
  EXPECT_EQ(d.attempts, 0);
  EXPECT_EQ(d.seq, 2u);
  EXPECT_FALSE(outbox->Get("fd_unknown").value().has_value());
  // A changed rule (another version) makes new deliveries of the same events.
  ASSERT_TRUE(outbox->Record(std::vector<NewDelivery>{MakeDelivery("copy", {1}, "/a", 1000, "v2")}, "runner", 7).ok());
  EXPECT_EQ(CountAll(*outbox), 4u);
}

TEST(OutboxTest, ADeliveryWithoutEventsOrWithUnorderedEventsIsRefusedAndNothingIsRecorded) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db");
  ASSERT_TRUE(outbox);
  std::vector<NewDelivery> batch = {MakeDelivery("copy", {1}, "/a"), MakeDelivery("copy", {3, 2}, "/b")};
  Status s = outbox->Record(batch, "runner", 3);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not ascending"), std::string::npos) << s.message();
  batch[1].event_ids.clear();
  EXPECT_FALSE(outbox->Record(batch, "runner", 3).ok());
  EXPECT_EQ(CountAll(*outbox), 0u);
  EXPECT_EQ(outbox->Cursor("runner").value(), 0u);
}

TEST(OutboxTest, LeaseTakesOneDeliveryPerPathInOrderAndOnlyAfterTheOlderFinished) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db");
  ASSERT_TRUE(outbox);
  const std::vector<NewDelivery> batch = {MakeDelivery("r", {1}, "/a"), MakeDelivery("r", {2}, "/a"),
                                          MakeDelivery("r", {3}, "/b"), MakeDelivery("r", {4}, "/a"),
                                          MakeDelivery("r", {5}, "/c")};
  ASSERT_TRUE(outbox->Record(batch, "runner", 5).ok());
  const RetryPolicy policy;
  auto first = outbox->Lease(10, 100, kSecond);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(Ids(*first), (std::vector<std::string>{IdOf(batch[0]), IdOf(batch[2]), IdOf(batch[4])}));
  for (const Delivery& d : *first) {
    EXPECT_EQ(d.state, DeliveryState::kRunning);
    EXPECT_EQ(d.attempts, 1);
    EXPECT_EQ(d.lease_until_ns, 100 + kSecond);
  }
  // /a's second waits for its first.
  EXPECT_TRUE(outbox->Lease(10, 200, kSecond)->empty());
  // A retry keeps the path's order: the waiting one blocks the younger ones of its path.
  ASSERT_TRUE(outbox->Finish(IdOf(batch[0]), {Outcome::kRetry, "503", std::nullopt}, policy, 300).ok());
  ASSERT_TRUE(outbox->Finish(IdOf(batch[2]), {Outcome::kSuccess, "ok", std::nullopt}, policy, 300).ok());
  ASSERT_TRUE(outbox->Finish(IdOf(batch[4]), {Outcome::kSuccess, "ok", std::nullopt}, policy, 300).ok());
  EXPECT_TRUE(outbox->Lease(10, 300, kSecond)->empty());
  auto again = outbox->Lease(10, 300 + 10 * kSecond, kSecond);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Ids(*again), (std::vector<std::string>{IdOf(batch[0])}));
  EXPECT_EQ((*again)[0].attempts, 2);
  ASSERT_TRUE(outbox->Finish(IdOf(batch[0]), {Outcome::kSuccess, "ok", std::nullopt}, policy, 400).ok());
  auto next = outbox->Lease(10, 500, kSecond);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(Ids(*next), (std::vector<std::string>{IdOf(batch[1])}));
  // A dead one no longer blocks its path.
  ASSERT_TRUE(outbox->Finish(IdOf(batch[1]), {Outcome::kPermanent, "400", std::nullopt}, policy, 600).ok());
  EXPECT_EQ(Ids(outbox->Lease(10, 700, kSecond).value()), (std::vector<std::string>{IdOf(batch[3])}));
}

TEST(OutboxTest, LeaseHonoursMaxAndTheCallersVeto) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db");
  ASSERT_TRUE(outbox);
  const std::vector<NewDelivery> batch = {MakeDelivery("slow", {1}, "/a"), MakeDelivery("slow", {2}, "/b"),
                                          MakeDelivery("fast", {3}, "/c"), MakeDelivery("fast", {4}, "/d"),
                                          MakeDelivery("fast", {5}, "/a")};
  ASSERT_TRUE(outbox->Record(batch, "runner", 5).ok());
  EXPECT_EQ(Ids(outbox->Lease(1, 100, kSecond).value()), (std::vector<std::string>{IdOf(batch[0])}));
  // At most one "slow" running at a time: the caller counts.
  int slow_running = 1;
  auto taken = outbox->Lease(10, 100, kSecond, [&](const Delivery& d) {
    if (d.rule != "slow") return true;
    if (slow_running >= 1) return false;
    return ++slow_running, true;
  });
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(Ids(*taken), (std::vector<std::string>{IdOf(batch[2]), IdOf(batch[3])}));
  EXPECT_EQ(outbox->Get(IdOf(batch[1]))->value().state, DeliveryState::kPending);
}

TEST(OutboxTest, AnExpiredLeaseIsTakenAgainAndTheFormerHoldersOutcomeIsRefused) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db");
  ASSERT_TRUE(outbox);
  const NewDelivery d = MakeDelivery("r", {1}, "/a");
  ASSERT_TRUE(outbox->Record({&d, 1}, "runner", 1).ok());
  const RetryPolicy policy;
  auto first = outbox->Lease(10, 0, 5 * kSecond);
  ASSERT_EQ(first->size(), 1u);
  // Not expired yet; a heartbeat extends it.
  EXPECT_TRUE(outbox->Lease(10, 4 * kSecond, 5 * kSecond)->empty());
  const std::vector<std::string> ids = {IdOf(d)};
  ASSERT_TRUE(outbox->Heartbeat(ids, 9 * kSecond).ok());
  EXPECT_TRUE(outbox->Lease(10, 6 * kSecond, 5 * kSecond)->empty());
  auto second = outbox->Lease(10, 9 * kSecond, 5 * kSecond);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].attempts, 2);
  EXPECT_EQ((*second)[0].lease_until_ns, 14 * kSecond);

  Status stale = outbox->Finish(IdOf(d), {Outcome::kSuccess, "ok", std::nullopt}, policy, 10 * kSecond, 1);
  EXPECT_FALSE(stale.ok());
  EXPECT_NE(stale.message().find(IdOf(d)), std::string::npos) << stale.message();
  EXPECT_NE(stale.message().find("taken again"), std::string::npos) << stale.message();
  ASSERT_TRUE(outbox->Finish(IdOf(d), {Outcome::kSuccess, "ok", std::nullopt}, policy, 10 * kSecond, 2).ok());
  Status twice = outbox->Finish(IdOf(d), {Outcome::kSuccess, "ok", std::nullopt}, policy, 11 * kSecond);
  EXPECT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("is not running (it is succeeded)"), std::string::npos) << twice.message();
  Status lost = outbox->Heartbeat(ids, 20 * kSecond);
  EXPECT_FALSE(lost.ok());
  EXPECT_NE(lost.message().find("no longer running"), std::string::npos) << lost.message();
  EXPECT_FALSE(outbox->Finish("fd_nope", {Outcome::kSuccess, "", std::nullopt}, policy, 0).ok());
}

// Leases one delivery at `now` and fails it with `outcome`; the delivery afterwards.
Delivery FailOnce(Outbox& outbox, const std::string& id, int64_t now, const Outcome& outcome,
                  const RetryPolicy& policy) {
  auto taken = outbox.Lease(1, now, kSecond);
  EXPECT_TRUE(taken.ok() && taken->size() == 1 && (*taken)[0].id == id);
  Status s = outbox.Finish(id, outcome, policy, now);
  EXPECT_TRUE(s.ok()) << s.message();
  return outbox.Get(id)->value();
}

TEST(BackoffTest, GrowsExponentiallyFromTheBaseUpToTheCapWithFullJitter) {
  RetryPolicy p;
  p.base_ns = 100;
  p.max_backoff_ns = 1000;
  EXPECT_EQ(BackoffNs(p, 1, 1.0), 100);
  EXPECT_EQ(BackoffNs(p, 2, 1.0), 200);
  EXPECT_EQ(BackoffNs(p, 4, 1.0), 800);
  EXPECT_EQ(BackoffNs(p, 5, 1.0), 1000);
  EXPECT_EQ(BackoffNs(p, 1000, 1.0), 1000);
  EXPECT_EQ(BackoffNs(p, 3, 0.0), 0);
  EXPECT_EQ(BackoffNs(p, 3, 0.5), 200);
  p.max_backoff_ns = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(BackoffNs(p, 200, 1.0), std::numeric_limits<int64_t>::max());
}

TEST(OutboxTest, RetriesWaitForTheBackoffWithinItsBoundsAndHonourRetryAfter) {
  fathom::testing::TempDir dir;
  RetryPolicy policy;
  policy.base_ns = kSecond;
  policy.max_backoff_ns = 8 * kSecond;
  for (double jitter : {0.0, 1.0}) {
    SCOPED_TRACE(jitter);
    auto outbox = OpenOrDie(dir / ("outbox-" + std::to_string(jitter) + ".db"), jitter);
    ASSERT_TRUE(outbox);
    const NewDelivery d = MakeDelivery("r", {1}, "/a", 0);
    ASSERT_TRUE(outbox->Record({&d, 1}, "runner", 1).ok());
    int64_t now = 0;
    for (int attempt = 1; attempt <= 6; ++attempt) {
      Delivery after = FailOnce(*outbox, IdOf(d), now, {Outcome::kRetry, "503 #" + std::to_string(attempt), {}}, policy);
      EXPECT_EQ(after.state, DeliveryState::kWaiting);
      EXPECT_EQ(after.attempts, attempt);
      EXPECT_EQ(after.last_result, "503 #" + std::to_string(attempt));
      const int64_t ceiling = std::min<int64_t>(kSecond << (attempt - 1), 8 * kSecond);
      EXPECT_EQ(after.next_ns - now, jitter == 0.0 ? 0 : ceiling);
      if (after.next_ns > now) {
        EXPECT_TRUE(outbox->Lease(1, after.next_ns - 1, kSecond)->empty());
      }
      now = after.next_ns;
    }
    // Retry-After: at least what the receiver asked for.
    Delivery after = FailOnce(*outbox, IdOf(d), now, {Outcome::kRetry, "429", 30 * kSecond}, policy);
    EXPECT_EQ(after.next_ns - now, 30 * kSecond);
    now = after.next_ns;
    after = FailOnce(*outbox, IdOf(d), now, {Outcome::kRetry, "429", 1}, policy);
    EXPECT_EQ(after.next_ns - now, jitter == 0.0 ? 1 : 8 * kSecond);
  }
}

TEST(OutboxTest, ADeliveryDiesAfterMaxAttemptsOrMaxAgeOrAPermanentFailure) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db", 0.0);
  ASSERT_TRUE(outbox);
  RetryPolicy policy;
  policy.max_attempts = 3;
  policy.max_age_ns = 100 * kSecond;
  const NewDelivery tries = MakeDelivery("r", {1}, "/a", 0);
  const NewDelivery old = MakeDelivery("r", {2}, "/b", 0);
  const NewDelivery bad = MakeDelivery("r", {3}, "/c", 0);
  ASSERT_TRUE(outbox->Record(std::vector<NewDelivery>{tries, old, bad}, "runner", 3).ok());
  EXPECT_EQ(FailOnce(*outbox, IdOf(tries), 0, {Outcome::kRetry, "e1", {}}, policy).state, DeliveryState::kWaiting);
  EXPECT_EQ(FailOnce(*outbox, IdOf(tries), 0, {Outcome::kRetry, "e2", {}}, policy).state, DeliveryState::kWaiting);
  Delivery dead = FailOnce(*outbox, IdOf(tries), 0, {Outcome::kRetry, "e3", {}}, policy);
  EXPECT_EQ(dead.state, DeliveryState::kDead);
  EXPECT_EQ(dead.attempts, 3);
  EXPECT_EQ(dead.last_result, "e3");

  // The age counts from the delivery's creation.
  auto taken = outbox->Lease(1, 100 * kSecond, kSecond);
  ASSERT_EQ(Ids(*taken), std::vector<std::string>{IdOf(old)});
  ASSERT_TRUE(outbox->Finish(IdOf(old), {Outcome::kRetry, "late", {}}, policy, 100 * kSecond).ok());
  EXPECT_EQ(outbox->Get(IdOf(old))->value().state, DeliveryState::kDead);

  Delivery permanent = FailOnce(*outbox, IdOf(bad), 100 * kSecond, {Outcome::kPermanent, "404", {}}, policy);
  EXPECT_EQ(permanent.state, DeliveryState::kDead);
  EXPECT_EQ(permanent.attempts, 1);
}

TEST(OutboxTest, ReplayBringsDeadDeliveriesBackAndPurgeDeletesThem) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db", 0.0);
  ASSERT_TRUE(outbox);
  RetryPolicy policy;
  policy.max_age_ns = 100 * kSecond;
  const std::vector<NewDelivery> batch = {MakeDelivery("a", {1}, "/1", 0), MakeDelivery("a", {2}, "/2", 0),
                                          MakeDelivery("b", {3}, "/3", 0), MakeDelivery("b", {4}, "/4", 0)};
  ASSERT_TRUE(outbox->Record(batch, "runner", 4).ok());
  ASSERT_EQ(outbox->Lease(10, 0, kSecond)->size(), 4u);
  for (const NewDelivery& d : batch) {
    ASSERT_TRUE(outbox->Finish(IdOf(d), {Outcome::kPermanent, "gone", {}}, policy, 0).ok());
  }
  // Replay of one: pending, attempts 0, its age counted again from the next lease.
  ASSERT_TRUE(outbox->Replay(IdOf(batch[0])).ok());
  Delivery replayed = outbox->Get(IdOf(batch[0]))->value();
  EXPECT_EQ(replayed.state, DeliveryState::kPending);
  EXPECT_EQ(replayed.attempts, 0);
  auto taken = outbox->Lease(10, 500 * kSecond, kSecond);
  ASSERT_EQ(Ids(*taken), std::vector<std::string>{IdOf(batch[0])});
  ASSERT_TRUE(outbox->Finish(IdOf(batch[0]), {Outcome::kRetry, "503", {}}, policy, 501 * kSecond).ok());
  EXPECT_EQ(outbox->Get(IdOf(batch[0]))->value().state, DeliveryState::kWaiting);

  Status not_dead = outbox->Replay(IdOf(batch[0]));
  EXPECT_FALSE(not_dead.ok());
  EXPECT_NE(not_dead.message().find(IdOf(batch[0]) + " is waiting, not dead"), std::string::npos)
      << not_dead.message();
  Status unknown = outbox->Replay("fd_0000");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("no delivery fd_0000"), std::string::npos) << unknown.message();

  EXPECT_EQ(outbox->ReplayAllDead("b").value(), 2u);
  EXPECT_EQ(outbox->Get(IdOf(batch[2]))->value().state, DeliveryState::kPending);
  EXPECT_EQ(outbox->Get(IdOf(batch[1]))->value().state, DeliveryState::kDead);
  EXPECT_EQ(outbox->ReplayAllDead().value(), 1u);
  EXPECT_EQ(outbox->ReplayAllDead().value(), 0u);

  // The three replayed, and the waiting one, whose backoff (jitter 0) is over.
  ASSERT_EQ(outbox->Lease(10, 600 * kSecond, kSecond)->size(), 4u);
  ASSERT_TRUE(outbox->Finish(IdOf(batch[1]), {Outcome::kPermanent, "gone", {}}, policy, 600 * kSecond).ok());
  ASSERT_TRUE(outbox->Finish(IdOf(batch[2]), {Outcome::kPermanent, "gone", {}}, policy, 600 * kSecond).ok());
  ASSERT_TRUE(outbox->Finish(IdOf(batch[3]), {Outcome::kSuccess, "ok", {}}, policy, 600 * kSecond).ok());
  EXPECT_EQ(outbox->PurgeDead("a").value(), 1u);
  EXPECT_EQ(outbox->PurgeDead().value(), 1u);
  EXPECT_EQ(outbox->PurgeSucceeded(600 * kSecond).value(), 0u);
  EXPECT_EQ(outbox->PurgeSucceeded(601 * kSecond).value(), 1u);
  EXPECT_EQ(CountAll(*outbox), 1u);  // the running one
  // A purged delivery recorded again (the same events re-read) is a new delivery.
  ASSERT_TRUE(outbox->Record({&batch[3], 1}, "runner", 4).ok());
  EXPECT_EQ(CountAll(*outbox), 2u);
}

TEST(OutboxTest, CountsAndListsAreExactPerRuleAndState) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db", 0.0);
  ASSERT_TRUE(outbox);
  const RetryPolicy policy;
  std::vector<NewDelivery> batch;
  for (uint64_t e = 1; e <= 6; ++e) batch.push_back(MakeDelivery("a", {e}, "/a" + std::to_string(e), 0));
  for (uint64_t e = 7; e <= 9; ++e) batch.push_back(MakeDelivery("b", {e, e + 10}, "/b" + std::to_string(e), 0));
  ASSERT_TRUE(outbox->Record(batch, "runner", 19).ok());
  // a: 1 succeeded, 2 dead, 3 waiting (retried once then waiting again), 4 running, 5 and 6 pending.
  ASSERT_EQ(outbox->Lease(4, 10, kSecond)->size(), 4u);
  ASSERT_TRUE(outbox->Finish(IdOf(batch[0]), {Outcome::kSuccess, "a1 ok", {}}, policy, 20).ok());
  ASSERT_TRUE(outbox->Finish(IdOf(batch[1]), {Outcome::kPermanent, "a2 gone", {}}, policy, 30).ok());
  ASSERT_TRUE(outbox->Finish(IdOf(batch[2]), {Outcome::kRetry, "a3 busy", {}}, policy, 25).ok());
  auto retried = outbox->Lease(1, 40, kSecond);
  ASSERT_EQ(Ids(*retried), std::vector<std::string>{IdOf(batch[2])});
  ASSERT_TRUE(outbox->Finish(IdOf(batch[2]), {Outcome::kRetry, "a3 busy again", {}}, policy, 26).ok());
  auto counts = outbox->Counts();
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  ASSERT_EQ(counts->size(), 2u);
  const Outbox::RuleCounts& a = (*counts)[0];
  EXPECT_EQ(a.rule, "a");
  EXPECT_EQ(a.pending, 2u);
  EXPECT_EQ(a.running, 1u);
  EXPECT_EQ(a.waiting, 1u);
  EXPECT_EQ(a.succeeded, 1u);
  EXPECT_EQ(a.dead, 1u);
  EXPECT_EQ(a.retried, 1u);
  EXPECT_EQ(a.last_event, 6u);
  EXPECT_EQ(a.last_result, "a2 gone");
  const Outbox::RuleCounts& b = (*counts)[1];
  EXPECT_EQ(b.rule, "b");
  EXPECT_EQ(b.pending, 3u);
  EXPECT_EQ(b.running + b.waiting + b.succeeded + b.dead + b.retried, 0u);
  EXPECT_EQ(b.last_event, 19u);
  EXPECT_EQ(b.last_result, "");
  // Pending (2 of a, 3 of b) and running (1 of a); not waiting, succeeded or dead.
  EXPECT_EQ(outbox->Unfinished().value(), 6u);

  std::vector<uint64_t> seqs;
  ASSERT_TRUE(outbox->List("a", DeliveryState::kPending, 0, [&](const Delivery& d) {
    seqs.push_back(d.seq);
    return true;
  }).ok());
  EXPECT_EQ(seqs, (std::vector<uint64_t>{6, 5}));
  seqs.clear();
  ASSERT_TRUE(outbox->List({}, std::nullopt, 3, [&](const Delivery& d) {
    seqs.push_back(d.seq);
    return true;
  }).ok());
  EXPECT_EQ(seqs, (std::vector<uint64_t>{9, 8, 7}));
  EXPECT_EQ(StateFromName("waiting"), DeliveryState::kWaiting);
  EXPECT_EQ(StateName(DeliveryState::kDead), "dead");
}

// Two connections (as two runners would have), each shared by two threads.
TEST(OutboxTest, ThreadsAndConnectionsSharingTheOutboxNeverTakeADeliveryTwice) {
  fathom::testing::TempDir dir;
  auto outbox = OpenOrDie(dir / "outbox.db");
  auto second = OpenOrDie(dir / "outbox.db");
  ASSERT_TRUE(outbox && second);
  std::vector<NewDelivery> batch;
  for (uint64_t e = 1; e <= 200; ++e) batch.push_back(MakeDelivery("r", {e}, "/f" + std::to_string(e % 17)));
  ASSERT_TRUE(outbox->Record(batch, "runner", 200).ok());
  std::mutex mu;
  std::vector<std::string> done;
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t]() {
      Outbox& mine = t % 2 == 0 ? *outbox : *second;
      for (int idle = 0; idle < 50;) {
        auto taken = mine.Lease(3, 0, 3600 * kSecond);
        if (!taken.ok() || taken->empty()) {
          ++idle;
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          continue;
        }
        for (const Delivery& d : *taken) {
          if (!mine.Finish(d.id, {Outcome::kSuccess, "ok", std::nullopt}, RetryPolicy{}, 1, d.attempts).ok()) return;
          std::lock_guard lock(mu);
          done.push_back(d.id);
        }
      }
    });
  }
  for (std::thread& w : workers) w.join();
  EXPECT_EQ(done.size(), 200u);
  EXPECT_EQ(std::set<std::string>(done.begin(), done.end()).size(), 200u);
}

TEST(OutboxTest, AReaderOpensTheOutboxBesideTheWriterAndCannotChangeIt) {
  fathom::testing::TempDir dir;
  const std::string path = dir / "outbox.db";
  auto missing = Outbox::Open(path, true);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no rules outbox at " + path), std::string::npos);
  auto writer = OpenOrDie(path);
  ASSERT_TRUE(writer);
  const NewDelivery d = MakeDelivery("r", {1}, "/a");
  ASSERT_TRUE(writer->Record({&d, 1}, "runner", 1).ok());
  auto reader = Outbox::Open(path, true);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->Cursor("runner").value(), 1u);
  EXPECT_EQ((*reader)->Counts()->at(0).pending, 1u);
  Status s = (*reader)->Record({&d, 1}, "runner", 2);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();
  // The writer goes on while the reader has the file open.
  ASSERT_EQ(writer->Lease(1, 0, kSecond)->size(), 1u);
  EXPECT_EQ((*reader)->Counts()->at(0).running, 1u);
}

TEST(OutboxTest, OnAReadOnlyFileSystemAWriterIsToldSoWhileAReaderReadsTheOutbox) {
  fathom::testing::TempDir rw;
  fathom::testing::TempDir view;
  {
    auto outbox = OpenOrDie(rw / "outbox.db");
    ASSERT_TRUE(outbox);
    const NewDelivery d = MakeDelivery("r", {1}, "/a");
    ASSERT_TRUE(outbox->Record({&d, 1}, "runner", 1).ok());
  }
  fathom::testing::ReadOnlyMount mount(rw.path(), view.path());
  ASSERT_EQ(mount.error(), 0) << "mounting a read-only view failed (tests run as root): "
                              << std::strerror(mount.error());
  auto writer = Outbox::Open(view / "outbox.db");
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("the file system holding the outbox is mounted read-only"),
            std::string::npos)
      << writer.status().message();
  auto reader = Outbox::Open(view / "outbox.db", true);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->Cursor("runner").value(), 1u);
  EXPECT_EQ((*reader)->Counts()->at(0).pending, 1u);
}

TEST(OutboxTest, AFileOfAnotherApplicationIsRefusedNamingIt) {
  fathom::testing::TempDir dir;
  const std::string other = dir / "other.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x); PRAGMA application_id = 1179928653", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = Outbox::Open(other);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(other + " is not a fathom rules outbox (it is a fathom event store)"),
            std::string::npos)
      << store.status().message();
  const std::string newer = dir / "newer.db";
  ASSERT_TRUE(Outbox::Open(newer).ok());
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto future = Outbox::Open(newer, true);
  ASSERT_FALSE(future.ok());
  EXPECT_NE(future.status().message().find("schema version 99, newer than this fathom understands"),
            std::string::npos)
      << future.status().message();
  const std::string text = dir / "notes.txt";
  std::ofstream(text) << "not a database, but long enough to have a header of some kind..................\n";
  auto notes = Outbox::Open(text);
  ASSERT_FALSE(notes.ok());
  EXPECT_NE(notes.status().message().find("not a fathom rules outbox"), std::string::npos)
      << notes.status().message();
}

}  // namespace
}  // namespace fathom::rules
