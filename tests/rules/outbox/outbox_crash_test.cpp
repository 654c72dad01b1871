// The outbox under SIGKILL: a child process records, leases and finishes deliveries in a loop
// while the test kills it at random points and starts it again; every recorded delivery
// must be there exactly once, the cursor never moves backwards, and the file stays sound.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_test_util.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::MakeDelivery;

constexpr int64_t kLeaseNs = 20'000'000;  // 20 ms: leases of a killed child expire soon

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The deliveries of event `e`: one of rule "each", and one of rule "pairs" for (e-1, e) when e is even.
std::vector<NewDelivery> DeliveriesOf(uint64_t e) {
  const int64_t now = WallNs();
  std::vector<NewDelivery> out = {MakeDelivery("each", {e}, "/p" + std::to_string(e % 5), now)};
  if (e % 2 == 0) out.push_back(MakeDelivery("pairs", {e - 1, e}, "/q" + std::to_string(e % 3), now));
  return out;
}

uint64_t ExpectedDeliveries(uint64_t cursor) { return cursor + cursor / 2; }

// The child: runs until killed; exits non-zero when an operation fails.
[[noreturn]] void RunnerLoop(const std::string& path) {
  OutboxOptions options;
  options.jitter = []() { return 0.0; };
  auto opened = Outbox::Open(path, std::move(options));
  if (!opened.ok()) _exit(2);
  Outbox& outbox = **opened;
  auto read = outbox.Cursor("runner");
  if (!read.ok()) _exit(3);
  uint64_t cursor = *read;
  std::mt19937 random(static_cast<unsigned>(getpid()));
  // A restart reads the last events again: recorded again, they must change nothing.
  {
    std::vector<NewDelivery> again;
    for (uint64_t e = cursor > 3 ? cursor - 3 : 1; e <= cursor; ++e) {
      for (NewDelivery& d : DeliveriesOf(e)) again.push_back(std::move(d));
    }
    if (!outbox.Record(again, "runner", cursor).ok()) _exit(4);
  }
  RetryPolicy policy;
  policy.base_ns = 1'000'000;
  policy.max_attempts = 1000;
  for (;;) {
    const uint64_t k = 1 + random() % 4;
    std::vector<NewDelivery> batch;
    for (uint64_t e = cursor + 1; e <= cursor + k; ++e) {
      for (NewDelivery& d : DeliveriesOf(e)) batch.push_back(std::move(d));
    }
    if (!outbox.Record(batch, "runner", cursor + k).ok()) _exit(5);
    cursor += k;
    const int64_t now = WallNs();
    auto taken = outbox.Lease(4, now, kLeaseNs);
    if (!taken.ok()) _exit(6);
    for (const Delivery& d : *taken) {
      const Outcome outcome{random() % 4 == 0 ? Outcome::kRetry : Outcome::kSuccess, "attempt", std::nullopt};
      if (!outbox.Finish(d.id, outcome, policy, WallNs(), d.attempts).ok()) _exit(7);
    }
  }
}

TEST(OutboxCrashTest, KilledAtRandomPointsTheRunnerLosesNothingAndRecordsNothingTwice) {
  fathom::testing::TempDir dir;
  const std::string path = dir / "outbox.db";
  std::mt19937 random(20261125);
  uint64_t last_cursor = 0;
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) RunnerLoop(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 100));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the runner stopped by itself (exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1)
        << "): an operation failed";

    auto outbox = Outbox::Open(path, true);
    if (!outbox.ok() && last_cursor == 0) continue;  // killed before the file was made
    ASSERT_TRUE(outbox.ok()) << outbox.status().message();
    const uint64_t cursor = (*outbox)->Cursor("runner").value();
    EXPECT_GE(cursor, last_cursor);
    last_cursor = cursor;
    // Exactly the deliveries of events 1..cursor, each once (ids are unique in the file).
    std::map<std::string, uint64_t> each;
    uint64_t total = 0;
    ASSERT_TRUE((*outbox)->List({}, std::nullopt, 0, [&](const Delivery& d) {
      ++total;
      if (d.rule == "each") each[d.id] = d.event_ids.at(0);
      return true;
    }).ok());
    EXPECT_EQ(total, ExpectedDeliveries(cursor));
    for (uint64_t e = 1; e <= cursor; ++e) {
      const NewDelivery d = DeliveriesOf(e)[0];
      ASSERT_EQ(each.count(testing::IdOf(d)), 1u) << "event " << e;
    }
  }
  ASSERT_GT(last_cursor, 0u) << "the runner never recorded anything";

  // A last runner finishes everything: the leases of the killed ones expired and are taken again.
  auto outbox = Outbox::Open(path);
  ASSERT_TRUE(outbox.ok()) << outbox.status().message();
  const int64_t later = WallNs() + 1'000'000'000'000;
  for (;;) {
    auto taken = (*outbox)->Lease(100, later, kLeaseNs);
    ASSERT_TRUE(taken.ok()) << taken.status().message();
    if (taken->empty()) break;
    for (const Delivery& d : *taken) {
      ASSERT_TRUE((*outbox)->Finish(d.id, {Outcome::kSuccess, "ok", std::nullopt}, RetryPolicy{}, later, d.attempts).ok());
    }
  }
  uint64_t succeeded = 0;
  const std::vector<Outbox::RuleCounts> counts = (*outbox)->Counts().value();
  for (const Outbox::RuleCounts& c : counts) {
    EXPECT_EQ(c.pending + c.running + c.waiting + c.dead, 0u) << c.rule;
    succeeded += c.succeeded;
  }
  EXPECT_EQ(succeeded, ExpectedDeliveries(last_cursor));
  outbox = Status::Ok();

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* check = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &check, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
  sqlite3_finalize(check);
  sqlite3_close(db);
}

}  // namespace
}  // namespace fathom::rules
