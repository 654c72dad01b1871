// matcher.cpp — Matcher: the index, then conditions with their attributes.
#include "rules/matcher.h"

#include "rules/entry_attributes.h"
#include "rules/trigger_condition.h"

namespace fathom::rules {
namespace {

std::vector<const Trigger*> Triggers(const RuleSet& set) {
  std::vector<const Trigger*> out;
  for (const Rule& r : set.rules) out.push_back(&r.trigger);
  return out;
}

// An owned rule sees only what its owner may (the aggregator's grants: a grant and below it).
bool Granted(const Rule& rule, const Event& event) {
  if (rule.owner.empty()) return true;
  for (const std::string& p : rule.owner_paths) {
    if (PathUnder(event.path, p)) return true;
  }
  return false;
}

}  // namespace

Matcher::Matcher(const RuleSet& set, catalog::Catalog* catalog)
    : set_(set), catalog_(catalog), index_(Triggers(set)) {}

void Matcher::Match(const Event& event, int64_t now_ns, std::vector<size_t>& out) {
  candidates_.clear();
  index_.Candidates(event, candidates_);
  if (candidates_.empty()) return;
  EntryAttributes attributes(event, catalog_);
  for (size_t r : candidates_) {
    if (!Granted(set_.rules[r], event)) continue;
    const Trigger& t = set_.rules[r].trigger;
    if (MatchesCondition(t, event, attributes.Of(t.attributes), names_, now_ns)) out.push_back(r);
  }
}

std::string Matcher::Explain(const Event& event, size_t rule, int64_t now_ns) {
  std::string why = index_.Explain(rule, event);
  if (!why.empty()) return why;
  const Rule& r = set_.rules[rule];
  if (!Granted(r, event)) return "path " + event.path + " is not granted to its owner " + r.owner;
  EntryAttributes attributes(event, catalog_);
  const Trigger& t = set_.rules[rule].trigger;
  MatchesCondition(t, event, attributes.Of(t.attributes), names_, now_ns, &why);
  return why;
}

void Matcher::ExplainAll(const Event& event, int64_t now_ns, const std::function<void(const std::string&)>& line) {
  for (size_t r = 0; r < set_.rules.size(); ++r) {
    const std::string why = Explain(event, r, now_ns);
    line("event " + std::to_string(event.id) + " " + KindNames(event.mask) + " " + event.path + ": rule " +
         set_.rules[r].name + (why.empty() ? " takes it" : ": " + why));
  }
}

}  // namespace fathom::rules
