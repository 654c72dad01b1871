#include "policy/policies_section.h"

#include <algorithm>
#include <set>

#include "condition/units.h"

namespace fathom::policy {
namespace {

class PolicyReader {
 public:
  PolicyReader(const YamlText& yaml, std::string name, std::string noun = "policy")
      : y_(yaml), name_(std::move(name)), noun_(std::move(noun)) {}

  Result<Policy> Read(const YAML::Node& node) {
    Policy p;
    p.name = name_;
    if (!node.IsMap()) return Fail(node, "expected a mapping of the policy's keys");
    bool has_default = false;
    for (const auto& item : node) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& v = item.second;
      if (key == "default_action") {
        FATHOM_ASSIGN_OR_RETURN(p.default_action, ActionOf(v, "default_action"));
        has_default = true;
      } else if (key == "scope") {
        FATHOM_ASSIGN_OR_RETURN(condition::Condition c, y_.ConditionOf(v, What("scope")));
        p.scope = std::move(c);
      } else if (key == "ignore") {
        for (const YAML::Node& c : Listed(v)) {
          FATHOM_ASSIGN_OR_RETURN(condition::Condition parsed, y_.ConditionOf(c, What("ignore")));
          p.ignore.push_back(std::move(parsed));
        }
      } else if (key == "ignore_fileclass") {
        FATHOM_ASSIGN_OR_RETURN(p.ignore_fileclasses, Names(v, key));
      } else if (key == "rules") {
        if (!v.IsSequence()) return Fail(v, "rules: expected a list of rules");
        for (const YAML::Node& r : v) {
          FATHOM_ASSIGN_OR_RETURN(Rule rule, RuleOf(r));
          p.rules.push_back(std::move(rule));
        }
      } else if (key == "sort") {
        FATHOM_ASSIGN_OR_RETURN(p.sort, SortOf(v));
      } else if (key == "max_action_count") {
        auto n = v.IsScalar() ? condition::ParseCount(v.Scalar()) : std::nullopt;
        if (!n) return Fail(v, "max_action_count: expected a whole number");
        p.max_action_count = static_cast<uint64_t>(*n);
      } else if (key == "max_action_volume") {
        auto n = v.IsScalar() ? condition::ParseSize(v.Scalar()) : std::nullopt;
        if (!n) return Fail(v, "max_action_volume: expected a size (e.g. 10TB)");
        p.max_action_volume = *n;
      } else if (key == "rate_limit") {
        FATHOM_ASSIGN_OR_RETURN(p.max_actions_per_second, RateOf(v));
      } else if (key == "suspend_error_pct") {
        FATHOM_ASSIGN_OR_RETURN(p.suspend_error_pct, PercentOf(v, key));
      } else if (key == "pre_run_command" || key == "post_run_command") {
        FATHOM_ASSIGN_OR_RETURN(auto argv, Names(v, key));
        (key == "pre_run_command" ? p.pre_run_command : p.post_run_command) = std::move(argv);
      } else if (key == "trigger" || key == "triggers") {
        for (const YAML::Node& t : Listed(v)) {
          FATHOM_ASSIGN_OR_RETURN(Trigger trigger, TriggerOf(t));
          p.triggers.push_back(std::move(trigger));
        }
      } else {
        return Fail(item.first, "unknown key '" + key +
                                    "' (expected default_action, scope, ignore, ignore_fileclass, rules, sort, "
                                    "max_action_count, max_action_volume, rate_limit, suspend_error_pct, "
                                    "pre_run_command, post_run_command, trigger)");
      }
    }
    if (!has_default) return Fail(node, "no default_action (delete, rmdir, log, {move: DIR}, {copy: DIR}, {command: [...]})");
    if (p.rules.empty()) return Fail(node, "no rules: give at least one (a rule without target_fileclass takes every entry)");
    return p;
  }

 private:
  std::string What(const std::string& key) const { return noun_ + " " + name_ + ", " + key; }
  Status Fail(const YAML::Node& at, const std::string& message) const {
    return Status::Error(y_.At(at.Mark()) + noun_ + " " + name_ + ": " + message);
  }
  static std::vector<YAML::Node> Listed(const YAML::Node& v) {
    std::vector<YAML::Node> out;
    if (v.IsSequence()) {
      for (const YAML::Node& n : v) out.push_back(n);
    } else {
      out.push_back(v);
    }
    return out;
  }
  Result<std::vector<std::string>> Names(const YAML::Node& v, const std::string& key) const {
    std::vector<std::string> out;
    for (const YAML::Node& n : Listed(v)) {
      if (!n.IsScalar() || n.Scalar().empty()) return Fail(n, key + ": expected a word or a list of words");
      out.push_back(n.Scalar());
    }
    return out;
  }

  Result<Action> ActionOf(const YAML::Node& v, const std::string& key) const {
    const std::string forms = key + ": expected delete, rmdir, log, {move: DIR}, {copy: DIR}, {copy: {to: DIR, "
                                    "verify: true}} or {command: [PROGRAM, ARG...], timeout: DURATION}";
    Action a;
    if (v.IsScalar()) {
      const std::string& word = v.Scalar();
      if (word == "delete") a.kind = Action::Kind::kDelete;
      else if (word == "rmdir") a.kind = Action::Kind::kRmdir;
      else if (word == "log") a.kind = Action::Kind::kLog;
      else return Fail(v, forms);
      return a;
    }
    if (!v.IsMap()) return Fail(v, forms);
    for (const auto& item : v) {
      const std::string how = item.first.as<std::string>();
      const YAML::Node& arg = item.second;
      if (how == "move" || how == "copy") {
        a.kind = how == "move" ? Action::Kind::kMove : Action::Kind::kCopy;
        const YAML::Node to = arg.IsMap() ? arg["to"] : arg;
        if (!to || !to.IsScalar() || to.Scalar().empty() || to.Scalar().front() != '/') {
          return Fail(arg, key + ": " + how + ": expected an absolute directory");
        }
        a.destination = to.Scalar();
        if (arg.IsMap() && arg["verify"]) a.verify = arg["verify"].as<bool>();
      } else if (how == "command") {
        a.kind = Action::Kind::kCommand;
        if (!arg.IsSequence() || arg.size() == 0) {
          return Fail(arg, key + ": command: expected a list: the program, then its arguments (no shell)");
        }
        for (const YAML::Node& word : arg) a.argv.push_back(word.as<std::string>());
      } else if (how == "timeout") {
        auto t = arg.IsScalar() ? condition::ParseDuration(arg.Scalar()) : std::nullopt;
        if (!t || *t == 0) return Fail(arg, key + ": timeout: expected a duration (e.g. 60s)");
        a.timeout_ns = *t;
      } else {
        return Fail(item.first, forms);
      }
    }
    return a;
  }

  Result<Rule> RuleOf(const YAML::Node& v) const {
    if (!v.IsMap()) return Fail(v, "rules: expected a rule: {name: NAME, target_fileclass: ..., condition: ...}");
    Rule r;
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      if (key == "name") {
        r.name = item.second.as<std::string>();
      } else if (key == "target_fileclass") {
        FATHOM_ASSIGN_OR_RETURN(r.target_fileclasses, Names(item.second, key));
      } else if (key == "condition") {
        FATHOM_ASSIGN_OR_RETURN(condition::Condition c,
                                y_.ConditionOf(item.second, What("rule " + (r.name.empty() ? "?" : r.name))));
        r.condition = std::move(c);
      } else if (key == "action") {
        FATHOM_ASSIGN_OR_RETURN(Action a, ActionOf(item.second, "action"));
        r.action = std::move(a);
      } else {
        return Fail(item.first, "rule: unknown key '" + key + "' (expected name, target_fileclass, condition, action)");
      }
    }
    if (r.name.empty()) return Fail(v, "rules: every rule needs a name");
    return r;
  }

  Result<Policy::Sort> SortOf(const YAML::Node& v) const {
    const std::string s = v.IsScalar() ? v.Scalar() : "";
    if (s == "none") return Policy::Sort::kNone;
    if (s == "last_access") return Policy::Sort::kLastAccess;
    if (s == "last_mod") return Policy::Sort::kLastMod;
    if (s == "creation") return Policy::Sort::kCreation;
    if (s == "size") return Policy::Sort::kSize;
    return Fail(v, "sort: expected last_access, last_mod, creation, size or none");
  }

  Result<double> RateOf(const YAML::Node& v) const {
    const std::string s = v.IsScalar() ? v.Scalar() : "";
    const size_t slash = s.find('/');
    const std::string per = slash == std::string::npos ? "" : s.substr(slash + 1);
    const double seconds = per == "s" ? 1 : per == "min" ? 60 : per == "h" ? 3600 : 0;
    const int64_t n = slash == std::string::npos ? 0 : condition::ParseCount(s.substr(0, slash)).value_or(0);
    if (n == 0 || seconds == 0) return Fail(v, "rate_limit: expected actions per time: N/s, N/min or N/h");
    return static_cast<double>(n) / seconds;
  }

  Result<double> PercentOf(const YAML::Node& v, const std::string& key) const {
    std::string s = v.IsScalar() ? v.Scalar() : "";
    if (!s.empty() && s.back() == '%') s.pop_back();
    auto n = condition::ParseCount(s);
    if (!n || *n > 100) return Fail(v, key + ": expected a percentage from 0 to 100 (e.g. 5%)");
    return static_cast<double>(*n);
  }

  Result<Threshold> ThresholdOf(const YAML::Node& v, const std::string& key) const {
    const std::string s = v.IsScalar() ? v.Scalar() : "";
    Threshold t;
    if (!s.empty() && s.back() == '%') {
      FATHOM_ASSIGN_OR_RETURN(t.value, PercentOf(v, key));
      t.unit = Threshold::Unit::kPercent;
      return t;
    }
    if (s.size() > 8 && s.ends_with(" entries")) {
      if (auto n = condition::ParseCount(s.substr(0, s.size() - 8))) {
        t.unit = Threshold::Unit::kEntries;
        t.value = static_cast<double>(*n);
        return t;
      }
    }
    auto bytes = condition::ParseSize(s);
    const bool has_unit = !s.empty() && std::isalpha(static_cast<unsigned char>(s.back()));
    if (!bytes || !has_unit) return Fail(v, key + ": expected a percentage (85%), a volume (10TB) or a count (1000000 entries)");
    t.unit = Threshold::Unit::kBytes;
    t.value = static_cast<double>(*bytes);
    return t;
  }

 public:
  // A policy's trigger; an alert's usage (`alert`: a usage with a high mark only, raised at
  // or over it and cleared under it; no check_every).
  Result<Trigger> TriggerOf(const YAML::Node& v, bool alert = false) const {
    if (!v.IsMap()) return Fail(v, "trigger: expected {on: ..., check_every: ..., high: ..., low: ...}");
    Trigger t;
    bool has_on = false;
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& arg = item.second;
      if (key == "on") {
        static const std::pair<const char*, Trigger::On> kOn[] = {
            {"periodic", Trigger::On::kPeriodic},      {"global_usage", Trigger::On::kGlobalUsage},
            {"user_usage", Trigger::On::kUserUsage},   {"group_usage", Trigger::On::kGroupUsage},
            {"ost_usage", Trigger::On::kOstUsage},     {"pool_usage", Trigger::On::kPoolUsage}};
        const std::string s = arg.IsScalar() ? arg.Scalar() : "";
        auto it = std::find_if(std::begin(kOn), std::end(kOn), [&](const auto& o) { return s == o.first; });
        if (it == std::end(kOn)) {
          return Fail(arg, "trigger: on: expected periodic, global_usage, user_usage, group_usage, ost_usage or pool_usage");
        }
        t.on = it->second;
        has_on = true;
      } else if (key == "check_every") {
        auto d = arg.IsScalar() ? condition::ParseDuration(arg.Scalar()) : std::nullopt;
        if (!d || *d == 0) return Fail(arg, "trigger: check_every: expected a duration (e.g. 15min)");
        t.check_every_ns = *d;
      } else if (key == "high" || key == "low") {
        FATHOM_ASSIGN_OR_RETURN(Threshold th, ThresholdOf(arg, "trigger: " + key));
        (key == "high" ? t.high : t.low) = th;
      } else if (key == "targets") {
        FATHOM_ASSIGN_OR_RETURN(t.targets, Names(arg, "trigger: targets"));
      } else if (key == "capacity") {
        auto n = arg.IsScalar() ? condition::ParseSize(arg.Scalar()) : std::nullopt;
        if (!n || *n <= 0) return Fail(arg, "trigger: capacity: expected a size (e.g. 100TB)");
        t.capacity = *n;
      } else {
        return Fail(item.first,
                    "trigger: unknown key '" + key + "' (expected on, check_every, high, low, targets, capacity)");
      }
    }
    if (!has_on) return Fail(v, "trigger: no 'on:' (periodic, global_usage, ...)");
    const bool per_ost = t.on == Trigger::On::kOstUsage || t.on == Trigger::On::kPoolUsage;
    if (alert) {
      if (t.on == Trigger::On::kPeriodic) return Fail(v, "usage: expected a usage (global_usage, user_usage, ...)");
      if (!t.high || t.low) return Fail(v, "usage: an alert has a high mark only (raised at or over it, cleared under it)");
      if (per_ost && t.high->unit == Threshold::Unit::kPercent && !t.capacity) {
        return Fail(v, "usage: a percentage of an OST or a pool needs its capacity (capacity: 100TB)");
      }
      return t;
    }
    if (t.check_every_ns == 0) return Fail(v, "trigger: no check_every (e.g. 15min)");
    const bool usage = t.on != Trigger::On::kPeriodic;
    if (usage && (!t.high || !t.low)) return Fail(v, "trigger: a usage trigger needs high and low");
    if (!usage && (t.high || t.low)) return Fail(v, "trigger: a periodic trigger has no high or low");
    if (usage && t.high->unit != t.low->unit) return Fail(v, "trigger: high and low must be in the same unit");
    if (per_ost && t.high->unit == Threshold::Unit::kPercent && !t.capacity) {
      return Fail(v, "trigger: a percentage of an OST or a pool needs its capacity (capacity: 100TB)");
    }
    if (usage && t.low->value >= t.high->value) {
      return Fail(v, "trigger: low must be below high (it acts from the high mark down to the low mark)");
    }
    return t;
  }

 private:
  const YamlText& y_;
  std::string name_;
  std::string noun_;
};

}  // namespace

Result<Trigger> ParseAlertUsage(const YAML::Node& node, const YamlText& yaml, const std::string& alert) {
  return PolicyReader(yaml, alert, "alert").TriggerOf(node, true);
}

Status ParsePolicies(const YAML::Node& section, const YamlText& yaml, std::vector<Policy>& policies) {
  if (section.IsNull()) return Status::Ok();
  if (!section.IsMap()) return Status::Error(yaml.At(section.Mark()) + "policies: expected a mapping of policy names");
  std::set<std::string> seen;
  for (const auto& item : section) {
    const std::string name = item.first.as<std::string>();
    if (!seen.insert(name).second) return Status::Error(yaml.At(item.first.Mark()) + "policy '" + name + "' is defined twice");
    FATHOM_ASSIGN_OR_RETURN(Policy p, PolicyReader(yaml, name).Read(item.second));
    policies.push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace fathom::policy
