// rules_tables.cpp — StatusTable, DeliveryTable.
#include "rules/rules_tables.h"

#include <algorithm>
#include <ctime>
#include <map>

namespace fathom::rules {
namespace {

using catalog::report::CountCell;
using catalog::report::Table;
using catalog::report::TextCell;

std::string IdRange(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return "";
  return ids.size() == 1 ? std::to_string(ids.front())
                         : std::to_string(ids.front()) + ".." + std::to_string(ids.back()) + " (" +
                               std::to_string(ids.size()) + ")";
}

std::string IsoTime(int64_t ns) {
  const time_t t = static_cast<time_t>(ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

Result<Table> StatusTable(Outbox& outbox, const RuleSet* set, const std::string& consumer, uint64_t newest) {
  FATHOM_ASSIGN_OR_RETURN(uint64_t cursor, outbox.Cursor(consumer));
  FATHOM_ASSIGN_OR_RETURN(std::vector<Outbox::RuleCounts> counts, outbox.Counts());
  std::map<std::string, Outbox::RuleCounts> by_rule;
  if (set != nullptr) {
    for (const Rule& r : set->rules) by_rule[r.name].rule = r.name;
  }
  for (Outbox::RuleCounts& c : counts) by_rule[c.rule] = std::move(c);
  FATHOM_ASSIGN_OR_RETURN(std::vector<Outbox::DisabledEndpoint> endpoints, outbox.DisabledEndpoints());
  std::map<std::string, std::string> disabled;
  for (const Outbox::DisabledEndpoint& e : endpoints) {
    std::string& text = disabled[e.rule];
    text += (text.empty() ? "" : "; ") + e.url + " since " + IsoTime(e.since_ns) + " (" + e.reason + ")";
    by_rule[e.rule].rule = e.rule;
  }
  Table t;
  t.name = "rules-status";
  t.preamble = "consumer " + consumer + ": cursor " + std::to_string(cursor);
  if (newest != 0) {
    t.preamble += ", newest event " + std::to_string(newest) + ", lag " +
                  std::to_string(newest > cursor ? newest - cursor : 0) + " events";
  }
  t.preamble += "\n";
  FATHOM_ASSIGN_OR_RETURN(std::vector<PausedRule> paused, outbox.Paused());
  for (const PausedRule& p : paused) {
    t.preamble += "rule " + p.rule + " is paused: " + p.reason + "\n";
  }
  t.columns = {{"rule", 16, 16},   {"pending", 8, 8}, {"running", 8, 8}, {"waiting", 8, 8}, {"succeeded", 10, 10},
               {"dead", 6, 6},     {"retried", 8, 8}, {"last_event", 11, 11}, {"last_result", 0, 0},
               {"disabled", 0, 0}};
  for (const auto& [name, c] : by_rule) {
    t.rows.push_back({TextCell(name), CountCell(c.pending), CountCell(c.running), CountCell(c.waiting),
                      CountCell(c.succeeded), CountCell(c.dead), CountCell(c.retried), CountCell(c.last_event),
                      TextCell(c.last_result), TextCell(disabled[name])});
  }
  return t;
}

Result<Table> DeliveryTable(Outbox& outbox, const std::string& rule, const std::vector<DeliveryState>& states,
                            size_t limit) {
  std::vector<Delivery> found;
  auto keep = [&](const Delivery& d) {
    found.push_back(d);
    return true;
  };
  if (states.empty()) FATHOM_RETURN_IF_ERROR(outbox.List(rule, std::nullopt, limit, keep));
  for (DeliveryState state : states) FATHOM_RETURN_IF_ERROR(outbox.List(rule, state, limit, keep));
  std::sort(found.begin(), found.end(), [](const Delivery& x, const Delivery& y) { return x.seq > y.seq; });
  if (limit != 0 && found.size() > limit) found.resize(limit);
  Table t;
  t.name = "rules-deliveries";
  t.columns = {{"id", 35, 35},      {"rule", 16, 16},  {"state", 9, 9}, {"attempts", 8, 8},
               {"events", 12, 12},  {"path", 0, 0},    {"last_result", 0, 0}};
  for (const Delivery& d : found) {
    t.rows.push_back({TextCell(d.id), TextCell(d.rule), TextCell(std::string(StateName(d.state))),
                      CountCell(static_cast<uint64_t>(d.attempts)), TextCell(IdRange(d.event_ids)), TextCell(d.path),
                      TextCell(d.last_result)});
  }
  return t;
}

}  // namespace fathom::rules
