// outbox.cpp — opening an Outbox; recording deliveries and cursors; leasing deliveries and
// recording how their attempts ended.
#include "rules/outbox/outbox.h"

#include <algorithm>
#include <charconv>
#include <random>

#include "rules/outbox/outbox_state.h"

namespace fathom::rules {
namespace {

constexpr int kPending = static_cast<int>(DeliveryState::kPending);
constexpr int kRunning = static_cast<int>(DeliveryState::kRunning);
constexpr int kWaiting = static_cast<int>(DeliveryState::kWaiting);
constexpr int kSucceeded = static_cast<int>(DeliveryState::kSucceeded);
constexpr int kDead = static_cast<int>(DeliveryState::kDead);

std::function<double()> UniformJitter() {
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  return [engine]() { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}

Status CheckDelivery(const std::string& path, const NewDelivery& d) {
  std::string problem;
  if (d.rule.empty()) problem = "a delivery has no rule name";
  else if (d.event_ids.empty()) problem = "a delivery of rule " + d.rule + " has no event ids";
  else if (!std::is_sorted(d.event_ids.begin(), d.event_ids.end()) ||
           std::adjacent_find(d.event_ids.begin(), d.event_ids.end()) != d.event_ids.end()) {
    problem = "the event ids of a delivery of rule " + d.rule + " are not ascending";
  }
  if (problem.empty()) return Status::Ok();
  return Status::Error("rules outbox " + path + ": " + problem + "; nothing of this batch was recorded");
}

}  // namespace

std::string EventIdsText(std::span<const uint64_t> ids) {
  std::string text;
  for (uint64_t id : ids) {
    if (!text.empty()) text.push_back(',');
    text += std::to_string(id);
  }
  return text;
}

std::vector<uint64_t> EventIdsFrom(std::string_view text) {
  std::vector<uint64_t> ids;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    uint64_t id = 0;
    auto [next, ec] = std::from_chars(p, end, id);
    if (ec != std::errc()) break;
    ids.push_back(id);
    p = next;
    if (p < end && *p == ',') ++p;
  }
  return ids;
}

void ReadDelivery(const store::Statement& stmt, Delivery& out) {
  stmt.ColumnText(0, out.id);
  out.seq = static_cast<uint64_t>(stmt.ColumnInt(1));
  stmt.ColumnText(2, out.rule);
  stmt.ColumnText(3, out.rule_version);
  out.path.assign(stmt.ColumnBlob(4));
  stmt.ColumnText(5, out.payload);
  std::string ids;
  stmt.ColumnText(6, ids);
  out.event_ids = EventIdsFrom(ids);
  out.state = static_cast<DeliveryState>(std::clamp<int64_t>(stmt.ColumnInt(7), kPending, kDead));
  out.attempts = static_cast<int>(stmt.ColumnInt(8));
  out.created_ns = stmt.ColumnInt(9);
  out.next_ns = stmt.ColumnInt(10);
  out.lease_until_ns = stmt.ColumnInt(11);
  out.finished_ns = stmt.ColumnInt(12);
  stmt.ColumnText(13, out.last_result);
}

Status Outbox::State::InTransaction(std::string_view what, const std::function<Status()>& work) {
  FATHOM_RETURN_IF_ERROR(Writable(what));
  FATHOM_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE", what));
  Status s = work();
  if (s.ok()) s = db.Exec("COMMIT", what);
  if (!s.ok()) db.RollbackIfOpen();
  return s;
}

Status Outbox::State::Writable(std::string_view what) const {
  if (!read_only) return Status::Ok();
  return Status::Error("rules outbox " + db.path() + ": " + std::string(what) +
                       ": the outbox was opened read-only; only the rules' runner changes it");
}

Outbox::Outbox(std::unique_ptr<State> state) : s_(std::move(state)) {}
Outbox::~Outbox() = default;

const std::string& Outbox::path() const { return s_->db.path(); }

Result<std::unique_ptr<Outbox>> Outbox::Open(const std::string& path, bool read_only) {
  OutboxOptions options;
  options.read_only = read_only;
  return Open(path, std::move(options));
}

Result<std::unique_ptr<Outbox>> Outbox::Open(const std::string& path, OutboxOptions options) {
  auto state = std::make_unique<State>();
  FATHOM_ASSIGN_OR_RETURN(state->db, OpenOutboxDb(path, options.read_only, options.busy_timeout_ms));
  state->read_only = options.read_only;
  state->jitter = options.jitter ? std::move(options.jitter) : UniformJitter();
  return std::unique_ptr<Outbox>(new Outbox(std::move(state)));
}

Status Outbox::Record(std::span<const NewDelivery> deliveries, std::string_view consumer, uint64_t cursor) {
  std::lock_guard lock(s_->mu);
  for (const NewDelivery& d : deliveries) FATHOM_RETURN_IF_ERROR(CheckDelivery(path(), d));
  const std::string_view what = "recording deliveries";
  return s_->InTransaction(what, [&]() -> Status {
    const store::Connection& db = s_->db;
    FATHOM_ASSIGN_OR_RETURN(
        store::Statement insert,
        db.Prepare("INSERT INTO deliveries(id, rule, rule_version, path, payload, event_ids, last_event, state,"
                   " attempts, created, age_from, next, lease_until, finished, last_result)"
                   " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0, ?8, ?8, 0, 0, 0, '') ON CONFLICT(id) DO NOTHING",
                   what));
    std::string id;
    std::string ids;
    for (const NewDelivery& d : deliveries) {
      id = DeliveryId(d.rule, d.rule_version, d.event_ids);
      ids = EventIdsText(d.event_ids);
      insert.BindText(1, id);
      insert.BindText(2, d.rule);
      insert.BindText(3, d.rule_version);
      insert.BindBlob(4, d.path);
      insert.BindText(5, d.payload);
      insert.BindText(6, ids);
      insert.BindInt(7, static_cast<int64_t>(d.event_ids.back()));
      insert.BindInt(8, d.created_ns);
      FATHOM_RETURN_IF_ERROR(db.StepDone(insert, what));
    }
    FATHOM_ASSIGN_OR_RETURN(store::Statement set,
                            db.Prepare("INSERT INTO cursors(consumer, event_id) VALUES(?1, ?2) ON CONFLICT(consumer)"
                                       " DO UPDATE SET event_id = max(event_id, excluded.event_id)",
                                       "recording the cursor"));
    set.BindText(1, consumer);
    set.BindInt(2, static_cast<int64_t>(cursor));
    return db.StepDone(set, "recording the cursor");
  });
}

Result<uint64_t> Outbox::Cursor(std::string_view consumer) {
  std::lock_guard lock(s_->mu);
  FATHOM_ASSIGN_OR_RETURN(store::Statement get,
                          s_->db.Prepare("SELECT event_id FROM cursors WHERE consumer = ?1", "reading a cursor"));
  get.BindText(1, consumer);
  FATHOM_ASSIGN_OR_RETURN(int64_t cursor, s_->db.QueryInt(get, "reading a cursor", 0));
  return static_cast<uint64_t>(cursor);
}

Result<std::vector<Delivery>> Outbox::Lease(size_t max, int64_t now_ns, int64_t lease_ns,
                                            const std::function<bool(const Delivery&)>& may_take) {
  std::lock_guard lock(s_->mu);
  std::vector<Delivery> taken;
  if (max == 0) return taken;
  const std::string_view what = "leasing deliveries";
  Status s = s_->InTransaction(what, [&]() -> Status {
    const store::Connection& db = s_->db;
    {
      // The unfinished deliveries in order (the partial index: finished rows cost nothing),
      // each the oldest unfinished one of its path.
      FATHOM_ASSIGN_OR_RETURN(
          store::Statement ready,
          db.Prepare(std::string("SELECT ") + kDeliveryColumns +
                         " FROM deliveries AS d INDEXED BY deliveries_open WHERE d.state < 3"
                         " AND (d.state = 0 OR (d.state = 2 AND d.next <= ?1) OR (d.state = 1 AND d.lease_until <= ?1))"
                         " AND NOT EXISTS(SELECT 1 FROM deliveries AS o WHERE o.path = d.path AND o.state < 3"
                         " AND o.seq < d.seq) ORDER BY d.seq",
                     what));
      ready.BindInt(1, now_ns);
      Delivery candidate;
      while (taken.size() < max) {
        const int rc = sqlite3_step(ready.get());
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) return db.Error(rc, what);
        ReadDelivery(ready, candidate);
        if (may_take && !may_take(candidate)) continue;
        taken.push_back(std::move(candidate));
        candidate = Delivery();
      }
    }
    FATHOM_ASSIGN_OR_RETURN(store::Statement take,
                            db.Prepare("UPDATE deliveries SET state = 1, attempts = attempts + 1, lease_until = ?1,"
                                       " age_from = coalesce(age_from, ?2) WHERE seq = ?3",
                                       what));
    const int64_t until = now_ns + lease_ns;
    for (Delivery& d : taken) {
      take.BindInt(1, until);
      take.BindInt(2, now_ns);
      take.BindInt(3, static_cast<int64_t>(d.seq));
      FATHOM_RETURN_IF_ERROR(db.StepDone(take, what));
      d.state = DeliveryState::kRunning;
      d.attempts += 1;
      d.lease_until_ns = until;
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return taken;
}

Status Outbox::Heartbeat(std::span<const std::string> ids, int64_t lease_until_ns) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "extending leases";
  std::vector<std::string> lost;
  FATHOM_RETURN_IF_ERROR(s_->InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(
        store::Statement extend,
        s_->db.Prepare("UPDATE deliveries SET lease_until = ?1 WHERE id = ?2 AND state = 1", what));
    for (const std::string& id : ids) {
      extend.BindInt(1, lease_until_ns);
      extend.BindText(2, id);
      FATHOM_RETURN_IF_ERROR(s_->db.StepDone(extend, what));
      if (sqlite3_changes(s_->db.get()) == 0) lost.push_back(id);
    }
    return Status::Ok();
  }));
  if (lost.empty()) return Status::Ok();
  std::string list;
  for (const std::string& id : lost) list += (list.empty() ? "" : ", ") + id;
  return Status::Error("rules outbox " + path() + ": deliveries " + list +
                       " are no longer running (unknown, finished, or their lease expired and they were taken "
                       "again): their leases were not extended, and their outcomes will be refused");
}

Status Outbox::Finish(const std::string& id, const Outcome& outcome, const RetryPolicy& policy, int64_t now_ns,
                      std::optional<int> attempt) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "recording the outcome of a delivery";
  const double jitter = s_->jitter();
  return s_->InTransaction(what, [&]() -> Status {
    const store::Connection& db = s_->db;
    FATHOM_ASSIGN_OR_RETURN(
        store::Statement get,
        db.Prepare("SELECT state, attempts, coalesce(age_from, created) FROM deliveries WHERE id = ?1", what));
    get.BindText(1, id);
    int rc = sqlite3_step(get.get());
    if (rc == SQLITE_DONE) {
      return Status::Error("rules outbox " + path() + ": no delivery " + id + ": its outcome is not recorded");
    }
    if (rc != SQLITE_ROW) return db.Error(rc, what);
    const int state = static_cast<int>(get.ColumnInt(0));
    const int attempts = static_cast<int>(get.ColumnInt(1));
    const int64_t age_from = get.ColumnInt(2);
    get.Reset();
    if (state != kRunning) {
      return Status::Error("rules outbox " + path() + ": delivery " + id + " is not running (it is " +
                           std::string(StateName(static_cast<DeliveryState>(std::clamp(state, kPending, kDead)))) +
                           "): its lease expired and it was taken again, or it was finished already; this "
                           "outcome is not recorded");
    }
    if (attempt && *attempt != attempts) {
      return Status::Error("rules outbox " + path() + ": delivery " + id + " was taken again (attempt " +
                           std::to_string(attempts) + " is running, not " + std::to_string(*attempt) +
                           ") after its lease expired; the outcome of attempt " + std::to_string(*attempt) +
                           " is not recorded");
    }
    int next_state = kSucceeded;
    int64_t next = 0;
    if (outcome.kind == Outcome::kPermanent) {
      next_state = kDead;
    } else if (outcome.kind == Outcome::kRetry) {
      if (attempts >= policy.max_attempts || now_ns - age_from >= policy.max_age_ns) {
        next_state = kDead;
      } else {
        next_state = kWaiting;
        const int64_t wait = std::max(BackoffNs(policy, attempts, jitter), outcome.retry_after_ns.value_or(0));
        next = now_ns + wait;
      }
    }
    FATHOM_ASSIGN_OR_RETURN(store::Statement set,
                            db.Prepare("UPDATE deliveries SET state = ?1, next = ?2, lease_until = 0, finished = ?3,"
                                       " last_result = ?4 WHERE id = ?5",
                                       what));
    set.BindInt(1, next_state);
    set.BindInt(2, next);
    set.BindInt(3, now_ns);
    set.BindText(4, outcome.message);
    set.BindText(5, id);
    return db.StepDone(set, what);
  });
}

}  // namespace fathom::rules
