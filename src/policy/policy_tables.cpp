// policy_tables.cpp — CheckTable, ActionTable, RunTable.
#include "policy/policy_tables.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <sys/stat.h>

#include "core/account_names.h"
#include "policy/candidates.h"

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

Result<rp::Table> ClassInfo(catalog::Catalog& catalog, const PolicyConfig& config, const std::string& only,
                            int64_t now_ns) {
  std::vector<std::string> classes = config.fileclasses.Names();
  if (!only.empty()) {
    if (Status known = RequireClass(config.fileclasses, config.source, only); !known.ok()) {
      return Status::Error("--class-info: " + known.message());
    }
    classes = {only};
  }
  struct Sum {
    uint64_t count = 0;
    int64_t blocks = 0, volume = 0, min = std::numeric_limits<int64_t>::max(), max = 0;
  };
  std::vector<Sum> sums(classes.size());
  NameCache names;
  std::set<catalog::EntryId> linked;
  FATHOM_RETURN_IF_ERROR(catalog.Select({}, [&](const catalog::Visit& v) {
    const catalog::Attrs& a = v.node.attrs;
    if (a.nlink > 1 && !S_ISDIR(a.mode) && !linked.insert(v.node.id).second) return true;
    const condition::Subject subject = SubjectOf(v.path, a, names);
    for (size_t i = 0; i < classes.size(); ++i) {
      if (!config.fileclasses.Contains(classes[i], subject, now_ns)) continue;
      Sum& s = sums[i];
      ++s.count;
      s.blocks += a.blocks;
      s.volume += a.size;
      s.min = std::min(s.min, a.size);
      s.max = std::max(s.max, a.size);
    }
    return true;
  }));
  rp::Table t;
  t.name = "class-info";
  t.columns = {rp::NameColumn("fileclass"), rp::CountColumn("count"), rp::SizeColumn("spc_used"),
               rp::SizeColumn("volume"),    rp::SizeColumn("min_size"), rp::SizeColumn("max_size"),
               rp::SizeColumn("avg_size")};
  t.columns[0].text_width = t.columns[0].csv_width = 16;
  for (size_t i = 0; i < classes.size(); ++i) {
    const Sum& s = sums[i];
    const auto u = [](int64_t n) { return rp::SizeCell(static_cast<uint64_t>(n)); };
    t.rows.push_back({rp::TextCell(classes[i]), rp::CountCell(s.count), u(s.blocks * 512), u(s.volume),
                      u(s.count == 0 ? 0 : s.min), u(s.max),
                      u(s.count == 0 ? 0 : s.volume / static_cast<int64_t>(s.count))});
  }
  return t;
}

Result<rp::Table> PolicyInfo(ActionJournal& journal, const std::string& only) {
  struct Sum {
    uint64_t runs = 0, actions = 0, failed = 0, skipped = 0;
    int64_t volume = 0, last = 0;
    std::string last_state;
  };
  std::map<std::string, Sum> by;
  FATHOM_RETURN_IF_ERROR(journal.Runs(only, 0, [&](const RunRecord& r) {
    Sum& s = by[r.policy];
    if (s.runs++ == 0) {  // newest first: the first seen is the last run
      s.last = r.started_ns;
      s.last_state = r.finished_ns == 0 ? "unfinished" : std::string(StateName(r.state));
    }
    s.actions += r.actions;
    s.failed += r.failed;
    s.skipped += r.skipped;
    s.volume += r.volume;
    return true;
  }));
  rp::Table t;
  t.name = "policy-info";
  t.columns = {rp::NameColumn("policy"), rp::CountColumn("runs"),    rp::CountColumn("actions"),
               rp::CountColumn("failed"), rp::CountColumn("skipped"), rp::SizeColumn("volume"),
               rp::DateColumn("last_run"), rp::NameColumn("last_state")};
  t.columns[0].text_width = t.columns[0].csv_width = 16;
  for (const auto& [policy, s] : by) {
    t.rows.push_back({rp::TextCell(policy), rp::CountCell(s.runs), rp::CountCell(s.actions), rp::CountCell(s.failed),
                      rp::CountCell(s.skipped), rp::SizeCell(static_cast<uint64_t>(s.volume)), rp::DateCell(s.last),
                      rp::TextCell(s.last_state)});
  }
  return t;
}

}  // namespace fathom::policy
