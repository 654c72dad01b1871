// runner.h — `fathom rules run`: a durable consumer of fathom's event stream that turns the
// events its rules match into deliveries in the outbox, and performs them.
//
// Contract (at least once, nothing runs away):
//   - The feed is read after the outbox's cursor for the runner's name. Each batch is matched
//     (RuleIndex, then each candidate's condition with the attributes its rule reads),
//     coalesced (settle, sentinel, batches), and the ready groups are recorded as deliveries in
//     the same transaction that moves the cursor to the last event all of whose deliveries
//     are recorded (events still held by the coalescer keep the cursor behind them). Only then
//     is the feed acknowledged. A restart resumes exactly there: no event is lost, and events
//     read again make the same deliveries (same ids), which the outbox does not record twice.
//   - Workers (the rules file's `concurrency`) lease ready deliveries (one path's in order, a
//     rule's at most its `concurrency` at once), run the action, and record the outcome:
//     success, a retry after a backoff, or dead. Leases of long actions are renewed; a runner
//     that dies leaves leases that expire and are taken again (the action sees the same
//     delivery id and a higher attempt number).
//   - Loops and storms (rules/loop_guards.h): events made by the runner's own actions are
//     ignored by the rule whose action made them; cascades deeper than max_cascade are
//     recorded dead; per-path rate limits delay deliveries; a rule's tripped breaker pauses
//     it (recorded in the outbox, announced in the log and to alert_sinks) until resumed.
//   - Back-pressure, not loss: the reader stops reading while more than `max_unfinished`
//     deliveries wait, so memory stays bounded and the cursor's lag shows it.
//
// Ownership: the Runner keeps references to the rule set, the outbox and the catalog (may be
// null when no rule reads the catalog), which must outlive it. Threading: Run() on one thread;
// it starts and joins its workers; `stop` may be set from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "catalog/follow/event_feed.h"
#include "fathom/catalog.h"
#include "rules/action_processes.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"

namespace fathom::rules {

struct RunnerOptions {
  std::string name = "rules";                // the consumer's name: its cursor in the outbox
  bool until_idle = false;                   // return once everything read is delivered or waiting to retry
  size_t max_batch = 4096;                   // events read at once
  size_t max_unfinished = 10000;             // deliveries not yet finished before reading pauses
  std::chrono::milliseconds wait{200};       // how long a read or an idle worker waits
  bool explain = false;                      // log why each event read was or was not taken by each rule
  std::function<void(const std::string&)> log;
  std::function<int64_t()> clock;            // the wall clock (ns since the epoch); NowNs when empty
};

struct RunnerCounters {
  std::atomic<uint64_t> events{0};       // read from the feed
  std::atomic<uint64_t> matched{0};      // (event, rule) pairs that held
  std::atomic<uint64_t> recorded{0};     // deliveries recorded
  std::atomic<uint64_t> succeeded{0};
  std::atomic<uint64_t> retried{0};
  std::atomic<uint64_t> dead{0};
  std::atomic<uint64_t> own_ignored{0};  // (event, rule) pairs left alone: the rule's own action made the event
  std::atomic<uint64_t> too_deep{0};     // deliveries recorded dead: past max_cascade
  std::atomic<uint64_t> rate_limited{0}; // deliveries recorded waiting for their rate limit
};

class Runner {
 public:
  Runner(const RuleSet& set, Outbox& outbox, catalog::Catalog* catalog, RunnerOptions options);

  // Reads `feed` (opened after Cursor(options.name)) until `stop`, or until idle.
  Status Run(catalog::EventFeed& feed, const std::atomic<bool>& stop);
  const RunnerCounters& counters() const { return counters_; }

 private:
  const RuleSet& set_;
  Outbox& outbox_;
  catalog::Catalog* catalog_;
  RunnerOptions options_;
  RunnerCounters counters_;
  ActionProcesses processes_;
};

}  // namespace fathom::rules
