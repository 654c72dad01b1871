// policy_tables.cpp — CheckTable, ActionTable, RunTable.
#include "policy/policy_tables.h"

namespace fathom::policy {

namespace rp = catalog::report;

rp::Table CheckTable(const PolicyCheck& check) {
  rp::Table t;
  t.name = "policy-check";
  t.preamble = "policy " + check.policy + ": " + std::to_string(check.selected) + " entries selected from the catalog\n";
  t.columns = {rp::NameColumn("rule"), rp::CountColumn("act"), rp::SizeColumn("volume"),
               rp::CountColumn("cond_false")};
  t.columns[0].text_width = t.columns[0].csv_width = 16;
  for (const RuleCount& r : check.rules) {
    t.rows.push_back({rp::TextCell(r.rule), rp::CountCell(r.act), rp::SizeCell(static_cast<uint64_t>(r.act_volume)),
                      rp::CountCell(r.condition_false)});
  }
  std::string footer = "Ignored: " + std::to_string(check.ignored) + ", out of scope: " +
                       std::to_string(check.out_of_scope) + ", targeted by no rule: " + std::to_string(check.no_rule);
  for (const auto& [why, n] : check.ignored_by) footer += "\n  " + std::to_string(n) + " " + why;
  t.footer = footer;
  return t;
}

Result<rp::Table> ActionTable(ActionJournal& journal, const ActionQuery& query, size_t limit) {
  rp::Table t;
  t.name = "policy-actions";
  t.columns = {rp::DateColumn("started"), rp::NameColumn("policy"), rp::NameColumn("rule"), rp::NameColumn("action"),
               rp::NameColumn("state"),   rp::PathColumn("path"),   rp::PathColumn("destination"),
               rp::PathColumn("result")};
  size_t n = 0;
  FATHOM_RETURN_IF_ERROR(journal.Actions(query, [&](const JournalAction& a) {
    t.rows.push_back({rp::DateCell(a.started_ns), rp::TextCell(a.policy), rp::TextCell(a.rule), rp::TextCell(a.action),
                      rp::TextCell(std::string(StateName(a.state))), rp::TextCell(a.path), rp::TextCell(a.destination),
                      rp::TextCell(a.result)});
    return limit == 0 || ++n < limit;
  }));
  t.footer = "Total: " + std::to_string(t.rows.size()) + " actions";
  return t;
}

Result<rp::Table> RunTable(ActionJournal& journal, const std::string& policy, int64_t since_ns) {
  rp::Table t;
  t.name = "policy-runs";
  t.columns = {rp::CountColumn("run"),     rp::NameColumn("policy"),  rp::DateColumn("started"),
               rp::DateColumn("finished"), rp::NameColumn("state"),   rp::CountColumn("actions"),
               rp::CountColumn("failed"),  rp::CountColumn("skipped"), rp::SizeColumn("volume"),
               rp::NameColumn("user"),     rp::PathColumn("message")};
  FATHOM_RETURN_IF_ERROR(journal.Runs(policy, since_ns, [&](const RunRecord& r) {
    t.rows.push_back({rp::CountCell(static_cast<uint64_t>(r.id)), rp::TextCell(r.policy), rp::DateCell(r.started_ns),
                      r.finished_ns == 0 ? rp::TextCell("-") : rp::DateCell(r.finished_ns),
                      rp::TextCell(r.finished_ns == 0 ? "unfinished" : std::string(StateName(r.state))),
                      rp::CountCell(r.actions), rp::CountCell(r.failed), rp::CountCell(r.skipped),
                      rp::SizeCell(static_cast<uint64_t>(r.volume)), rp::TextCell(r.user), rp::TextCell(r.message)});
    return true;
  }));
  t.footer = "Total: " + std::to_string(t.rows.size()) + " runs";
  return t;
}

}  // namespace fathom::policy
