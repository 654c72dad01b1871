// outbox_lease.cpp — leasing the deliveries ready to run, extending their leases, and
// recording how their attempts ended.
#include <algorithm>

#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_state.h"

namespace fathom::rules {
namespace {

constexpr int kPending = static_cast<int>(DeliveryState::kPending);
constexpr int kRunning = static_cast<int>(DeliveryState::kRunning);
constexpr int kWaiting = static_cast<int>(DeliveryState::kWaiting);
constexpr int kSucceeded = static_cast<int>(DeliveryState::kSucceeded);
constexpr int kDead = static_cast<int>(DeliveryState::kDead);

}  // namespace

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
  }, State::Durability::kLazy);
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
  }, State::Durability::kLazy));
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
  }, State::Durability::kLazy);
}

}  // namespace fathom::rules
