// decide.cpp — Decide: Robinhood's order for one entry: the policy's scope, its ignore
// conditions and classes, then the first rule whose target classes hold the entry (a rule
// without targets holds every entry), whose condition says whether it is acted upon.
#include <algorithm>

#include "fathom/policy.h"

namespace fathom::policy {

Decision Decide(const Policy& policy, const FileClasses& classes, const condition::Subject& subject,
                int64_t now_ns) {
  condition::Subject s = subject;
  s.in_class = [&](std::string_view name) { return classes.Contains(name, subject, now_ns); };
  Decision d;
  if (policy.scope && !policy.scope->Matches(s, now_ns)) {
    d.outcome = Decision::Outcome::kOutOfScope;
    d.why = "outside the scope of policy " + policy.name;
    return d;
  }
  for (const condition::Condition& ignore : policy.ignore) {
    if (ignore.Matches(s, now_ns)) {
      d.outcome = Decision::Outcome::kIgnored;
      d.why = "ignored: " + ignore.ToString();
      return d;
    }
  }
  for (const std::string& c : policy.ignore_fileclasses) {
    if (classes.Contains(c, subject, now_ns)) {
      d.outcome = Decision::Outcome::kIgnored;
      d.why = "ignored: in fileclass " + c;
      return d;
    }
  }
  for (const Rule& rule : policy.rules) {
    const bool targeted = rule.target_fileclasses.empty() ||
                          std::any_of(rule.target_fileclasses.begin(), rule.target_fileclasses.end(),
                                      [&](const std::string& c) { return classes.Contains(c, subject, now_ns); });
    if (!targeted) continue;
    d.rule = &rule;
    if (rule.condition && !rule.condition->Matches(s, now_ns)) {
      d.outcome = Decision::Outcome::kConditionFalse;
      d.why = "rule " + rule.name + ": its condition does not hold";
      return d;
    }
    d.outcome = Decision::Outcome::kAct;
    d.action = rule.action ? &*rule.action : &policy.default_action;
    d.why = "rule " + rule.name;
    return d;
  }
  d.why = "no rule of policy " + policy.name + " targets it";
  return d;
}

const Policy* PolicyConfig::Find(std::string_view name) const {
  for (const Policy& p : policies) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace fathom::policy
