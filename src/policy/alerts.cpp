// alerts.cpp — CheckAlerts: each alert's matches now against its state (alert_state), the
// events raised and cleared, and their delivery to the sinks; ActiveAlerts: that state read.
#include <map>
#include <set>

#include "catalog/report/report_table.h"
#include "core/account_names.h"
#include "fathom/policy.h"
#include "policy/alert_sinks.h"
#include "policy/candidates.h"
#include "policy/journal_db.h"

namespace fathom::policy {
namespace {

std::string Octal(uint32_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

// What an alert matches now: key -> detail.
Result<std::map<std::string, std::string>> Matches(const PolicyConfig& config, const AlertRule& a,
                                                   catalog::Catalog& catalog, int64_t now_ns) {
  std::map<std::string, std::string> now;
  if (a.usage) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<Firing> firings, EvaluateTrigger(*a.usage, catalog));
    for (const Firing& f : firings) now[f.target] = f.why;
    return now;
  }
  catalog::Selection selection;
  a.condition->Narrow(selection, now_ns);
  NameCache names;
  FATHOM_RETURN_IF_ERROR(catalog.Select(selection, [&](const catalog::Visit& v) {
    condition::Subject s = SubjectOf(v.path, v.node.attrs, names);
    const condition::Subject plain = s;
    s.in_class = [&](std::string_view c) { return config.fileclasses.Contains(c, plain, now_ns); };
    if (!a.condition->Matches(s, now_ns)) return true;
    const catalog::Attrs& at = v.node.attrs;
    now[std::string(v.path)] = "size " + catalog::report::FormatFileSize(static_cast<uint64_t>(at.size)) + ", owner " +
                               names.UserName(at.uid).value_or(std::to_string(at.uid)) + ", mode " + Octal(at.mode);
    return true;
  }));
  return now;
}

bool Routed(const AlertRule& a, const std::string& sink) {
  return a.sinks.empty() || std::find(a.sinks.begin(), a.sinks.end(), sink) != a.sinks.end();
}

}  // namespace

Result<AlertCheck> CheckAlerts(const PolicyConfig& config, catalog::Catalog& catalog, const std::string& catalog_uri,
                               int64_t now_ns) {
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<JournalDb> db, OpenJournalDb(catalog_uri, false));
  AlertCheck check;
  std::map<std::string, const AlertRule*> rules;
  for (const AlertRule& a : config.alerts) {
    rules[a.name] = &a;
    FATHOM_ASSIGN_OR_RETURN(auto now, Matches(config, a, catalog, now_ns));
    FATHOM_ASSIGN_OR_RETURN(auto rows, db->Query("SELECT key, detail, notified FROM alert_state WHERE alert = $1",
                                                 {a.name}, "read the alerts' state"));
    std::set<std::string> active;
    for (const SqlRow& r : rows) {
      const std::string key = TextOf(r[0]);
      active.insert(key);
      if (now.count(key) != 0) continue;
      FATHOM_RETURN_IF_ERROR(db->Query("DELETE FROM alert_state WHERE alert = $1 AND key = $2", {a.name, Blob{key}},
                                       "clear an alert")
                                 .status());
      // A raise never sent needs no clearing either.
      if (IntOf(r[2]) != 0) check.events.push_back({a.name, key, TextOf(r[1]), false});
    }
    for (const auto& [key, detail] : now) {
      if (active.count(key) != 0) continue;
      FATHOM_RETURN_IF_ERROR(db->Query("INSERT INTO alert_state(alert, key, detail, raised, notified)"
                                       " VALUES($1, $2, $3, $4, 0)",
                                       {a.name, Blob{key}, detail, now_ns}, "raise an alert")
                                 .status());
    }
  }
  // Every raise not yet delivered: this check's and those a sink failed to take before.
  FATHOM_ASSIGN_OR_RETURN(auto pending, db->Query("SELECT alert, key, detail FROM alert_state WHERE notified = 0"
                                                  " ORDER BY alert, key",
                                                  {}, "read the alerts to send"));
  for (const SqlRow& r : pending) {
    if (rules.count(TextOf(r[0])) != 0) check.events.push_back({TextOf(r[0]), TextOf(r[1]), TextOf(r[2]), true});
  }
  FATHOM_ASSIGN_OR_RETURN(auto count, db->Query("SELECT count(*) FROM alert_state", {}, "count the active alerts"));
  check.active = static_cast<uint64_t>(IntOf(count.at(0).at(0)));
  if (check.events.empty()) return check;

  bool all_sent = true;
  auto send = [&](const std::string& sink, const std::function<Status(const std::vector<AlertEvent>&)>& fn) {
    std::vector<AlertEvent> routed;
    for (const AlertEvent& e : check.events) {
      if (Routed(*rules.at(e.alert), sink)) routed.push_back(e);
    }
    if (routed.empty()) return;
    Status s = fn(routed);
    if (!s.ok()) {
      all_sent = false;
      check.errors.push_back(s.message());
    }
  };
  if (!config.alert_sinks.log_file.empty()) {
    send("log", [&](const auto& ev) { return SendToLog(config.alert_sinks.log_file, ev, now_ns); });
  }
  if (config.alert_sinks.mail) send("mail", [&](const auto& ev) { return SendMail(*config.alert_sinks.mail, ev, now_ns); });
  if (config.alert_sinks.webhook) {
    send("webhook", [&](const auto& ev) { return SendWebhook(*config.alert_sinks.webhook, ev, now_ns); });
  }
  if (all_sent) {
    FATHOM_RETURN_IF_ERROR(db->Query("UPDATE alert_state SET notified = 1 WHERE notified = 0", {}, "record alerts sent")
                               .status());
  }
  return check;
}

Result<std::vector<ActiveAlert>> ActiveAlerts(const std::string& catalog_uri) {
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<JournalDb> db, OpenJournalDb(catalog_uri, true));
  std::vector<ActiveAlert> active;
  FATHOM_ASSIGN_OR_RETURN(bool has_tables, db->HasTables());
  if (!has_tables) return active;
  FATHOM_ASSIGN_OR_RETURN(auto rows, db->Query("SELECT alert, key, detail, raised, notified FROM alert_state"
                                               " ORDER BY alert, key",
                                               {}, "read the alerts' state"));
  active.reserve(rows.size());
  for (const SqlRow& r : rows) {
    active.push_back({TextOf(r[0]), TextOf(r[1]), TextOf(r[2]), IntOf(r[3]), IntOf(r[4]) != 0});
  }
  return active;
}

}  // namespace fathom::policy
