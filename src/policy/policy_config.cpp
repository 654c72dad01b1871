// policy_config.cpp — LoadPolicyConfig: the YAML file read with yaml-cpp, every key and value
// checked, the file classes built and their references and cycles checked.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "policy/file_classes_impl.h"
#include "condition/units.h"
#include "policy/alerts_section.h"
#include "policy/policies_section.h"
#include "policy/yaml_text.h"

namespace fathom::policy {

class ConfigLoader {
 public:
  ConfigLoader(std::string_view text, std::string_view source) : yaml_{text, std::string(source)} {}

  Result<PolicyConfig> Load() {
    // yaml-cpp reports syntax errors, and keys or values of an unexpected shape, by throwing.
    try {
      return LoadYaml();
    } catch (const YAML::Exception& e) {
      return Status::Error(At(e.mark) + "not valid YAML here: " + e.msg);
    }
  }

 private:
  Result<PolicyConfig> LoadYaml() {
    YAML::Node root = YAML::Load(std::string(yaml_.text));
    PolicyConfig config;
    config.source = yaml_.source;
    if (!root || root.IsNull()) return config;
    if (!root.IsMap()) return Status::Error(At(root.Mark()) + "expected a mapping of sections (fileclasses:, policies:)");
    std::vector<YAML::Mark> policy_marks;
    YAML::Node alerts;
    for (const auto& item : root) {
      const std::string key = item.first.as<std::string>();
      if (key == "fileclasses") {
        FATHOM_RETURN_IF_ERROR(FileClassesSection(item.second, config.fileclasses));
      } else if (key == "policies") {
        FATHOM_RETURN_IF_ERROR(ParsePolicies(item.second, yaml_, config.policies));
        if (item.second.IsMap()) {
          for (const auto& p : item.second) policy_marks.push_back(p.first.Mark());
        }
      } else if (key == "alerts") {
        FATHOM_RETURN_IF_ERROR(ParseAlerts(item.second, yaml_, config.alerts));
        alerts = item.second;
      } else if (key == "alert_sinks") {
        FATHOM_RETURN_IF_ERROR(ParseAlertSinks(item.second, yaml_, config.alert_sinks));
      } else if (key == "alert_check_every") {
        auto d = item.second.IsScalar() ? condition::ParseDuration(item.second.Scalar()) : std::nullopt;
        if (!d || *d <= 0) return Status::Error(At(item.second.Mark()) + "alert_check_every: expected a duration (e.g. 5min)");
        config.alert_check_every_ns = *d;
      } else if (key == "alert_on_change") {
        const bool off = item.second.IsScalar() && item.second.Scalar() == "off";
        auto d = item.second.IsScalar() && !off ? condition::ParseDuration(item.second.Scalar()) : std::nullopt;
        if (!off && (!d || *d <= 0)) {
          return Status::Error(At(item.second.Mark()) + "alert_on_change: expected a duration (e.g. 5s) or off");
        }
        config.alert_on_change_ns = off ? 0 : *d;
      } else {
        return Status::Error(At(item.first.Mark()) + "unknown section '" + key +
                             "' (expected fileclasses, policies, alerts, alert_sinks, alert_check_every, alert_on_change)");
      }
    }
    FATHOM_RETURN_IF_ERROR(CheckReferences(config.fileclasses));
    for (size_t i = 0; i < config.policies.size(); ++i) {
      FATHOM_RETURN_IF_ERROR(CheckPolicyClasses(config.policies[i], config.fileclasses, policy_marks[i]));
    }
    FATHOM_RETURN_IF_ERROR(CheckAlertReferences(config, alerts, yaml_));
    return config;
  }

  using Definition = FileClasses::Definition;

  std::string At(const YAML::Mark& mark) const { return yaml_.At(mark); }

  // Every class a policy names is defined.
  Status CheckPolicyClasses(const Policy& p, const FileClasses& classes, const YAML::Mark& at) const {
    std::vector<std::string> named = p.ignore_fileclasses;
    auto add = [&](const condition::Condition& c) {
      for (std::string& n : c.Fileclasses()) named.push_back(std::move(n));
    };
    if (p.scope) add(*p.scope);
    for (const auto& c : p.ignore) add(c);
    for (const Rule& r : p.rules) {
      named.insert(named.end(), r.target_fileclasses.begin(), r.target_fileclasses.end());
      if (r.condition) add(*r.condition);
    }
    for (const std::string& n : named) {
      if (!classes.Has(n)) {
        std::string defined;
        for (const std::string& d : classes.Names()) defined += (defined.empty() ? "" : ", ") + d;
        return Status::Error(At(at) + "policy " + p.name + " names fileclass '" + n + "', which is not defined (defined: " +
                             (defined.empty() ? "none" : defined) + ")");
      }
    }
    return Status::Ok();
  }

  static bool GoodName(const std::string& name) {
    if (name.empty()) return false;
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
    }
    return true;
  }

  Status FileClassesSection(const YAML::Node& section, FileClasses& classes) {
    if (section.IsNull()) return Status::Ok();
    if (!section.IsMap()) return Status::Error(At(section.Mark()) + "fileclasses: expected a mapping of class names");
    for (const auto& item : section) {
      const std::string name = item.first.as<std::string>();
      if (!GoodName(name)) {
        return Status::Error(At(item.first.Mark()) + "fileclass name '" + name +
                             "': use letters, digits, '_', '-' and '.'");
      }
      if (classes.Has(name)) return Status::Error(At(item.first.Mark()) + "fileclass '" + name + "' is defined twice");
      FATHOM_ASSIGN_OR_RETURN(auto definition, Class(name, item.second));
      classes.classes_.emplace(name, std::move(definition));
    }
    return Status::Ok();
  }

  Result<std::unique_ptr<Definition>> Class(const std::string& name, const YAML::Node& value) {
    auto d = std::make_unique<Definition>();
    d->line = value.Mark().line + 1;
    d->column = value.Mark().column + 1;
    if (value.IsScalar()) {
      FATHOM_ASSIGN_OR_RETURN(condition::Condition c, yaml_.ConditionOf(value, "fileclass " + name));
      d->condition = std::move(c);
      return d;
    }
    const std::string expected = "fileclass '" + name + "': expected a condition, or one of {union: [CLASS...]}, "
                                 "{inter: [CLASS...]}, {not: CLASS}";
    if (!value.IsMap() || value.size() != 1) return Status::Error(At(value.Mark()) + expected);
    const auto& only = *value.begin();
    const std::string how = only.first.as<std::string>();
    const YAML::Node& members = only.second;
    if (how == "not") {
      if (!members.IsScalar()) return Status::Error(At(members.Mark()) + "fileclass '" + name + "': not: expected one class name");
      d->kind = Definition::Kind::kNot;
      d->members.push_back(members.Scalar());
      return d;
    }
    if (how != "union" && how != "inter") return Status::Error(At(only.first.Mark()) + expected);
    d->kind = how == "union" ? Definition::Kind::kUnion : Definition::Kind::kInter;
    if (!members.IsSequence() || members.size() == 0) {
      return Status::Error(At(members.Mark()) + "fileclass '" + name + "': " + how + ": expected a list of class names");
    }
    for (const auto& m : members) {
      if (!m.IsScalar()) return Status::Error(At(m.Mark()) + "fileclass '" + name + "': " + how + ": expected a class name");
      d->members.push_back(m.Scalar());
    }
    return d;
  }

  // The classes a definition names: its members and those its condition names.
  static std::vector<std::string> Named(const Definition& d) {
    std::vector<std::string> named = d.members;
    if (d.condition) {
      for (std::string& c : d.condition->Fileclasses()) named.push_back(std::move(c));
    }
    return named;
  }

  Status CheckReferences(const FileClasses& classes) {
    std::string defined;
    for (const std::string& n : classes.Names()) defined += (defined.empty() ? "" : ", ") + n;
    for (const auto& [name, d] : classes.classes_) {
      for (const std::string& other : Named(*d)) {
        if (!classes.Has(other)) {
          return Status::Error(yaml_.source + ": line " + std::to_string(d->line) + ", column " + std::to_string(d->column) +
                               ": fileclass '" + name + "' names '" + other + "', which is not defined (defined: " +
                               defined + ")");
        }
      }
    }
    // No class defined through itself: a depth-first search, the path kept for the message.
    std::set<std::string, std::less<>> done;
    std::vector<std::string> path;
    std::function<Status(const std::string&)> visit = [&](const std::string& name) -> Status {
      if (done.count(name)) return Status::Ok();
      if (auto at = std::find(path.begin(), path.end(), name); at != path.end()) {
        std::string cycle;
        for (auto it = at; it != path.end(); ++it) cycle += *it + " -> ";
        const Definition& d = *classes.classes_.find(name)->second;
        return Status::Error(yaml_.source + ": line " + std::to_string(d.line) + ", column " + std::to_string(d.column) +
                             ": fileclass '" + name + "' is defined through itself (" + cycle + name + ")");
      }
      path.push_back(name);
      for (const std::string& other : Named(*classes.classes_.find(name)->second)) {
        FATHOM_RETURN_IF_ERROR(visit(other));
      }
      path.pop_back();
      done.insert(name);
      return Status::Ok();
    };
    for (const std::string& name : classes.Names()) FATHOM_RETURN_IF_ERROR(visit(name));
    return Status::Ok();
  }

  YamlText yaml_;
};

Result<PolicyConfig> ParsePolicyConfig(std::string_view yaml, std::string_view source) {
  return ConfigLoader(yaml, source).Load();
}

Result<PolicyConfig> LoadPolicyConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status::FromErrno(errno, "policy configuration " + path + ": cannot read it (check the path given to --config)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParsePolicyConfig(text.str(), path);
}

}  // namespace fathom::policy
