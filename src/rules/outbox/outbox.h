// outbox.h — the delivery journal of the event-driven rules: a SQLite file that records, for
// every event a rule matched, the delivery of its action (one event or a batch of events, a
// path, a JSON payload), and follows each delivery until it succeeded or gave up.
//
// Contract (what the rules' runner builds its promise on):
//   - At least once. Record() stores new deliveries and the runner's cursor in one durable
//     transaction (WAL, synchronous=FULL): after a crash the runner resumes reading the event
//     stream after Cursor(), so no event is lost and none is recorded twice. A delivery's id is
//     DeliveryId(rule, version, event ids): a re-read after a restart yields the same ids,
//     and an id already present is left as it is.
//   - A delivery is taken by Lease() for a time (running, lease_until); a runner that dies
//     leaves it running until the lease expires, then Lease() hands it out again (attempts+1).
//     Heartbeat() extends the lease of long actions. Finish() records the outcome: success,
//     a retry after an exponential backoff with full jitter (RetryPolicy), or dead. The
//     action sees the same delivery id on every attempt, to recognise a repeat. Leases,
//     heartbeats and outcomes survive a crash of the process but are not waited on to reach
//     the disk (synchronous=NORMAL; the next Record() syncs them): a crash of the machine may
//     forget the last of them, which makes those actions run again, never lost.
//   - Actions about one path run in order: Lease() never hands out a delivery while an older
//     one of the same path is not finished (pending, running or waiting).
//   - Dead deliveries stay until replayed (Replay, ReplayAllDead) or purged (PurgeDead);
//     succeeded ones until PurgeSucceeded(). Endpoints disabled by HTTP 410 stay disabled
//     until enabled (EnableEndpoints).
//   - The file is recognised by its header (PRAGMA application_id 'FOBX', user_version);
//     a file of another application, or of a newer schema, is refused with a message that
//     says so. A reader (`fathom rules status`) opens it read-only beside a running writer.
//
// Memory stays bounded whatever the number of deliveries: Lease() walks an index of the
// unfinished deliveries in order and stops after `max`; List() and Counts() stream rows.
//
// Ownership and threading: an Outbox owns its SQLite connection. Its methods may be called
// from several threads (a mutex serialises them on the one connection); the callbacks given
// to Lease() and List() run under that mutex and must not call the Outbox. Several processes
// may open the same file: writers wait for each other up to a busy timeout (10 s).
// Errors are Status values naming the file, what failed and what to do.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::rules {

// A delivery to record: created by the runner from one event, or a batch of events, matched
// by a rule.
struct NewDelivery {
  std::string rule;                  // the rule's name
  std::string rule_version;          // hash of the rule's canonical text: a changed rule makes new deliveries
  std::vector<uint64_t> event_ids;   // ascending, not empty
  std::string path;                  // the path the action is about: deliveries of one path run in order
  std::string payload;               // the JSON document given to the action (opaque here)
  int64_t created_ns = 0;
  int depth = 0;                     // 0, or 1 + the depth of the delivery whose action caused its events
  int64_t not_before_ns = 0;         // later than created_ns: recorded waiting until then (a rate limit)
  std::string dead_reason;           // not empty: recorded dead at once, with this as its result
};

// "fd_" and 32 hexadecimal digits (the first 128 bits of a SHA-256 of the rule, the version
// and the event ids): the same arguments always give the same id, different ones (in
// practice) different ids.
std::string DeliveryId(std::string_view rule, std::string_view version, std::span<const uint64_t> event_ids);

enum class DeliveryState { kPending, kRunning, kWaiting /* to retry */, kSucceeded, kDead };
// "pending", "running", "waiting", "succeeded", "dead".
std::string_view StateName(DeliveryState state);
// The state named `name` (as StateName writes it), or nothing.
std::optional<DeliveryState> StateFromName(std::string_view name);

struct Delivery {
  std::string id;
  uint64_t seq = 0;  // insertion order, from 1
  std::string rule;
  std::string rule_version;
  std::string path;
  std::string payload;
  std::vector<uint64_t> event_ids;
  DeliveryState state = DeliveryState::kPending;
  int attempts = 0;            // how many times it was leased (since recorded or replayed)
  int64_t created_ns = 0;
  int64_t next_ns = 0;         // waiting: when it may run again
  int64_t lease_until_ns = 0;  // running: when its lease expires
  int64_t finished_ns = 0;     // when Finish() last recorded an outcome (0: never)
  std::string last_result;     // the message of the last outcome
  int depth = 0;               // as recorded (NewDelivery::depth)
};

// A rule whose deliveries are not run until it is resumed (its circuit breaker tripped).
struct PausedRule {
  std::string rule;
  int64_t since_ns = 0;
  std::string reason;
};

struct RetryPolicy {
  int max_attempts = 10;  // dead once this many attempts failed
  int64_t max_age_ns = std::chrono::nanoseconds(std::chrono::hours(24)).count();  // dead once this old
  int64_t base_ns = std::chrono::nanoseconds(std::chrono::seconds(1)).count();   // first backoff's cap
  int64_t max_backoff_ns = std::chrono::nanoseconds(std::chrono::hours(1)).count();
};

// The backoff before attempt `attempts` + 1, after `attempts` (>= 1) failed ones: full jitter,
// jitter * min(max_backoff, base * 2^(attempts-1)), with `jitter` in [0, 1].
int64_t BackoffNs(const RetryPolicy& policy, int attempts, double jitter);

// How an attempt ended, as the action reports it.
struct Outcome {
  enum Kind { kSuccess, kRetry, kPermanent };
  Kind kind = kSuccess;
  std::string message;                   // kept as the delivery's last_result
  std::optional<int64_t> retry_after_ns; // kRetry: the least wait the receiver asked for (Retry-After)
};

struct OutboxOptions {
  bool read_only = false;
  // Jitter of the backoffs, in [0, 1]; uniform random when empty. Tests give a fixed one.
  std::function<double()> jitter;
  int busy_timeout_ms = 10000;
};

class Outbox {
 public:
  // Opens the outbox at `path`: a writer creates it (a new or empty file); a reader requires
  // an existing outbox. Refuses a file of another application or of a newer schema.
  static Result<std::unique_ptr<Outbox>> Open(const std::string& path, bool read_only = false);
  static Result<std::unique_ptr<Outbox>> Open(const std::string& path, OutboxOptions options);
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  const std::string& path() const;

  // One transaction: inserts `deliveries` (pending; an id already present is left as it is,
  // so a re-read after a restart creates nothing twice) and sets the cursor of `consumer` to
  // `cursor`, the last event id whose deliveries are all recorded (a smaller cursor than the
  // one stored leaves it: a cursor never moves backwards). Durable when it returns.
  Status Record(std::span<const NewDelivery> deliveries, std::string_view consumer, uint64_t cursor);
  // The cursor of `consumer`; 0 when it has none.
  Result<uint64_t> Cursor(std::string_view consumer);

  // Takes up to `max` deliveries ready at `now_ns` (pending; waiting whose next_ns <= now;
  // running whose lease expired), oldest first, skipping any whose path has an older
  // delivery not finished: actions about one path run one at a time, in order. Each one
  // taken becomes running with lease_until = now + lease and attempts + 1 (in the Delivery
  // returned too). `may_take` (when given) is asked about each candidate before it is taken,
  // for per-rule concurrency limits: false skips it (and, for this call, the younger
  // deliveries of its path). A delivery taken again after its lease expired has attempts
  // beyond max_attempts when every runner died during it: the caller finishes it as
  // permanent rather than running it once more.
  // Memory: the deliveries taken; time: the unfinished deliveries older than the last one
  // taken are walked in an index (about 20 ms for 100,000 not ready).
  Result<std::vector<Delivery>> Lease(size_t max, int64_t now_ns, int64_t lease_ns,
                                      const std::function<bool(const Delivery&)>& may_take = {});
  // Extends the leases of running deliveries `ids` to `lease_until_ns`. An id no longer
  // running (its lease expired and it was taken again or finished) is reported in the error;
  // the others are extended all the same.
  Status Heartbeat(std::span<const std::string> ids, int64_t lease_until_ns);
  // Records the outcome of the running delivery `id`: success -> succeeded; retry -> waiting
  // until now + BackoffNs() (at least retry_after when given), or dead once attempts >=
  // max_attempts or the delivery is max_age old; permanent -> dead. last_result = message.
  // Refused (nothing changes) when the delivery is not running, or when `attempt` is given
  // and differs from its attempts: its lease expired and it was taken again, whose outcome
  // is the one to record. Durable when it returns.
  Status Finish(const std::string& id, const Outcome& outcome, const RetryPolicy& policy, int64_t now_ns,
                std::optional<int> attempt = std::nullopt);

  // A dead delivery back to pending, with attempts 0 and its age counted from its next lease.
  // An error naming `id` when it is unknown or not dead.
  Status Replay(const std::string& id);
  // Every dead delivery (of `rule`, or of all rules when empty) back to pending; how many.
  Result<size_t> ReplayAllDead(std::string_view rule = {});
  // Deletes the dead deliveries (of `rule`, or of all rules when empty); how many.
  Result<size_t> PurgeDead(std::string_view rule = {});
  // Deletes the deliveries that succeeded before `before_ns` (retention); how many.
  Result<size_t> PurgeSucceeded(int64_t before_ns);

  struct RuleCounts {
    std::string rule;
    uint64_t pending = 0, running = 0, waiting = 0, succeeded = 0, dead = 0;
    uint64_t retried = 0;     // deliveries with attempts > 1
    uint64_t last_event = 0;  // the highest event id of its deliveries
    std::string last_result;  // the last outcome recorded for the rule
  };
  // How many deliveries are pending or running: what the runner has still to start or end
  // (through the index of unfinished deliveries; waiting ones are not counted).
  Result<uint64_t> Unfinished();
  // One entry per rule with deliveries, by rule name.
  Result<std::vector<RuleCounts>> Counts();
  // The deliveries of `rule` (all rules when empty) in `state` (any when empty), newest
  // first, at most `limit` (0: no limit), only those whose seq is below `before_seq` when it
  // is not 0 (the next page's cursor); `fn` returns false to stop.
  Status List(std::string_view rule, std::optional<DeliveryState> state, size_t limit,
              const std::function<bool(const Delivery&)>& fn, uint64_t before_seq = 0);
  // The delivery `id`, or nothing when unknown.
  Result<std::optional<Delivery>> Get(const std::string& id);

  // Pauses `rule` (its deliveries are still recorded; the runner leases none of them until it
  // is resumed); a rule already paused keeps its first reason. Durable when it returns.
  Status Pause(const std::string& rule, const std::string& reason, int64_t now_ns);
  // Resumes `rule`; false when it was not paused.
  Result<bool> Resume(const std::string& rule);
  // The paused rules, by name.
  Result<std::vector<PausedRule>> Paused();

  // A rule's webhook endpoint that answered HTTP 410 Gone: no delivery of the rule calls it
  // again, across restarts, until EnableEndpoints(rule). Kept per rule and URL: a rule whose
  // URL is edited calls the new one.
  struct DisabledEndpoint {
    std::string rule;
    std::string url;
    std::string reason;    // the outcome that disabled it ("HTTP 410: ...")
    int64_t since_ns = 0;  // when
  };
  // Records it (again: the reason and the time are replaced). Durable when it returns.
  Status DisableEndpoint(const DisabledEndpoint& endpoint);
  // The record of `rule`'s `url` when it is disabled, else nothing.
  Result<std::optional<DisabledEndpoint>> DisabledEndpointOf(std::string_view rule, std::string_view url);
  // Every disabled endpoint, by rule and URL.
  Result<std::vector<DisabledEndpoint>> DisabledEndpoints();
  // Enables every endpoint of `rule` again; how many were disabled.
  Result<size_t> EnableEndpoints(std::string_view rule);

  struct State;  // outbox_state.h

 private:
  explicit Outbox(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace fathom::rules
