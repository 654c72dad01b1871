// outbox_admin.cpp — what an operator does to finished deliveries: replay the dead ones,
// purge dead and succeeded ones.
#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_state.h"

namespace fathom::rules {
namespace {

// Back to pending: attempts 0, the age counted again from the next lease.
constexpr const char* kReplay =
    "UPDATE deliveries SET state = 0, attempts = 0, age_from = NULL, next = 0, lease_until = 0";

// Runs `sql` (with `rule` bound to ?1 when not empty) in a transaction; the rows it changed.
Result<size_t> ChangeRows(Outbox::State& s, const std::string& sql, std::string_view rule, std::string_view what) {
  size_t changed = 0;
  FATHOM_RETURN_IF_ERROR(s.InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(store::Statement stmt, s.db.Prepare(sql, what));
    if (!rule.empty()) stmt.BindText(1, rule);
    FATHOM_RETURN_IF_ERROR(s.db.StepDone(stmt, what));
    changed = static_cast<size_t>(sqlite3_changes64(s.db.get()));
    return Status::Ok();
  }));
  return changed;
}

std::string RuleFilter(std::string_view rule) { return rule.empty() ? "" : " AND rule = ?1"; }

}  // namespace

Status Outbox::Replay(const std::string& id) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "replaying a delivery";
  return s_->InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(store::Statement get,
                            s_->db.Prepare("SELECT state FROM deliveries WHERE id = ?1", what));
    get.BindText(1, id);
    FATHOM_ASSIGN_OR_RETURN(int64_t state, s_->db.QueryInt(get, what, -1));
    if (state < 0) {
      return Status::Error("rules outbox " + path() + ": no delivery " + id +
                           " (`fathom rules status` lists the dead ones)");
    }
    if (state != static_cast<int>(DeliveryState::kDead)) {
      return Status::Error("rules outbox " + path() + ": delivery " + id + " is " +
                           std::string(StateName(static_cast<DeliveryState>(state))) +
                           ", not dead: only a dead delivery is replayed");
    }
    FATHOM_ASSIGN_OR_RETURN(store::Statement replay,
                            s_->db.Prepare(std::string(kReplay) + " WHERE id = ?1", what));
    replay.BindText(1, id);
    return s_->db.StepDone(replay, what);
  });
}

Result<size_t> Outbox::ReplayAllDead(std::string_view rule) {
  std::lock_guard lock(s_->mu);
  return ChangeRows(*s_, std::string(kReplay) + " WHERE state = 4" + RuleFilter(rule), rule,
                    "replaying dead deliveries");
}

Result<size_t> Outbox::PurgeDead(std::string_view rule) {
  std::lock_guard lock(s_->mu);
  return ChangeRows(*s_, "DELETE FROM deliveries WHERE state = 4" + RuleFilter(rule), rule,
                    "purging dead deliveries");
}

Result<size_t> Outbox::PurgeSucceeded(int64_t before_ns) {
  std::lock_guard lock(s_->mu);
  return ChangeRows(*s_, "DELETE FROM deliveries WHERE state = 3 AND finished < " + std::to_string(before_ns), {},
                    "purging succeeded deliveries");
}

}  // namespace fathom::rules
