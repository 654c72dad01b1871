// outbox_pause.cpp — rules paused by their circuit breaker, and resumed by an operator.
#include "rules/outbox/outbox.h"
#include "rules/outbox/outbox_state.h"

namespace fathom::rules {

Status Outbox::Pause(const std::string& rule, const std::string& reason, int64_t now_ns) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "pausing a rule";
  return s_->InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(store::Statement put,
                            s_->db.Prepare("INSERT INTO paused_rules(rule, since, reason) VALUES(?1, ?2, ?3)"
                                           " ON CONFLICT(rule) DO NOTHING",
                                           what));
    put.BindText(1, rule);
    put.BindInt(2, now_ns);
    put.BindText(3, reason);
    return s_->db.StepDone(put, what);
  });
}

Result<bool> Outbox::Resume(const std::string& rule) {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "resuming a rule";
  bool was = false;
  FATHOM_RETURN_IF_ERROR(s_->InTransaction(what, [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(store::Statement drop, s_->db.Prepare("DELETE FROM paused_rules WHERE rule = ?1", what));
    drop.BindText(1, rule);
    FATHOM_RETURN_IF_ERROR(s_->db.StepDone(drop, what));
    was = sqlite3_changes64(s_->db.get()) > 0;
    return Status::Ok();
  }));
  return was;
}

Result<std::vector<PausedRule>> Outbox::Paused() {
  std::lock_guard lock(s_->mu);
  const std::string_view what = "reading the paused rules";
  FATHOM_ASSIGN_OR_RETURN(store::Statement list,
                          s_->db.Prepare("SELECT rule, since, reason FROM paused_rules ORDER BY rule", what));
  std::vector<PausedRule> out;
  for (;;) {
    const int rc = sqlite3_step(list.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return s_->db.Error(rc, what);
    out.push_back({list.ColumnText(0), list.ColumnInt(1), list.ColumnText(2)});
  }
  return out;
}

}  // namespace fathom::rules
