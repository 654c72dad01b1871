// alerts_section.cpp — ParseAlerts, ParseAlertSinks, CheckAlertReferences.
#include "policy/alerts_section.h"

#include <algorithm>
#include <set>

#include "condition/units.h"
#include "policy/policies_section.h"

namespace fathom::policy {
namespace {

Status Fail(const YamlText& y, const YAML::Node& at, const std::string& message) {
  return Status::Error(y.At(at.Mark()) + message);
}

Result<std::vector<std::string>> Words(const YamlText& y, const YAML::Node& v, const std::string& what) {
  std::vector<std::string> out;
  if (v.IsScalar()) {
    out.push_back(v.Scalar());
    return out;
  }
  if (!v.IsSequence()) return Fail(y, v, what + ": expected a word or a list of words");
  for (const YAML::Node& w : v) {
    if (!w.IsScalar()) return Fail(y, w, what + ": expected a word");
    out.push_back(w.Scalar());
  }
  return out;
}

}  // namespace

Status ParseAlerts(const YAML::Node& section, const YamlText& y, std::vector<AlertRule>& alerts) {
  if (section.IsNull()) return Status::Ok();
  if (!section.IsMap()) return Fail(y, section, "alerts: expected a mapping of alert names");
  std::set<std::string> seen;
  for (const auto& item : section) {
    AlertRule a;
    a.name = item.first.as<std::string>();
    if (!seen.insert(a.name).second) return Fail(y, item.first, "alert '" + a.name + "' is defined twice");
    const YAML::Node& v = item.second;
    if (!v.IsMap()) return Fail(y, v, "alert " + a.name + ": expected {condition: ...} or {usage: {...}}");
    for (const auto& kv : v) {
      const std::string key = kv.first.as<std::string>();
      if (key == "condition") {
        FATHOM_ASSIGN_OR_RETURN(condition::Condition c, y.ConditionOf(kv.second, "alert " + a.name));
        a.condition = std::move(c);
      } else if (key == "usage") {
        FATHOM_ASSIGN_OR_RETURN(Trigger t, ParseAlertUsage(kv.second, y, a.name));
        a.usage = std::move(t);
      } else if (key == "sinks") {
        FATHOM_ASSIGN_OR_RETURN(a.sinks, Words(y, kv.second, "alert " + a.name + ", sinks"));
        for (const std::string& s : a.sinks) {
          if (s != "log" && s != "mail" && s != "webhook") {
            return Fail(y, kv.second, "alert " + a.name + ": unknown sink '" + s + "' (expected log, mail, webhook)");
          }
        }
      } else {
        return Fail(y, kv.first, "alert " + a.name + ": unknown key '" + key + "' (expected condition, usage, sinks)");
      }
    }
    if (a.condition.has_value() == a.usage.has_value()) {
      return Fail(y, v, "alert " + a.name + ": give either a condition on entries or a usage, not " +
                            (a.condition ? "both" : "neither"));
    }
    alerts.push_back(std::move(a));
  }
  return Status::Ok();
}

Status ParseAlertSinks(const YAML::Node& section, const YamlText& y, AlertSinks& sinks) {
  if (section.IsNull()) return Status::Ok();
  if (!section.IsMap()) return Fail(y, section, "alert_sinks: expected log:, mail: and/or webhook:");
  for (const auto& item : section) {
    const std::string key = item.first.as<std::string>();
    const YAML::Node& v = item.second;
    if (key == "log") {
      if (!v.IsScalar() || v.Scalar().empty() || v.Scalar().front() != '/') {
        return Fail(y, v, "alert_sinks: log: expected the absolute path of a file");
      }
      sinks.log_file = v.Scalar();
    } else if (key == "mail") {
      if (!v.IsMap()) return Fail(y, v, "alert_sinks: mail: expected {to: [ADDRESS...], from: ..., sendmail: ...}");
      AlertSinks::Mail m;
      for (const auto& kv : v) {
        const std::string k = kv.first.as<std::string>();
        if (k == "to") {
          FATHOM_ASSIGN_OR_RETURN(m.to, Words(y, kv.second, "alert_sinks: mail: to"));
        } else if (k == "from" && kv.second.IsScalar()) {
          m.from = kv.second.Scalar();
        } else if (k == "sendmail" && kv.second.IsScalar() && kv.second.Scalar().starts_with("/")) {
          m.sendmail = kv.second.Scalar();
        } else {
          return Fail(y, kv.first, "alert_sinks: mail: unknown or bad key '" + k +
                                       "' (expected to: [ADDRESS...], from: ADDRESS, sendmail: /PATH)");
        }
      }
      if (m.to.empty()) return Fail(y, v, "alert_sinks: mail: no address to send to (to: [...])");
      sinks.mail = std::move(m);
    } else if (key == "webhook") {
      AlertSinks::Webhook w;
      const YAML::Node url = v.IsMap() ? v["url"] : v;
      if (!url || !url.IsScalar() || !(url.Scalar().starts_with("http://") || url.Scalar().starts_with("https://"))) {
        return Fail(y, v, "alert_sinks: webhook: expected a URL (http:// or https://) or {url: ..., secret_file: ...}");
      }
      w.url = url.Scalar();
      if (v.IsMap()) {
        for (const auto& kv : v) {
          const std::string k = kv.first.as<std::string>();
          if (k == "url") continue;
          if (k == "secret_file" && kv.second.IsScalar()) {
            w.secret_file = kv.second.Scalar();
          } else if (k == "timeout" && kv.second.IsScalar() && condition::ParseDuration(kv.second.Scalar()).value_or(0) > 0) {
            w.timeout_ns = *condition::ParseDuration(kv.second.Scalar());
          } else {
            return Fail(y, kv.first, "alert_sinks: webhook: unknown or bad key '" + k +
                                         "' (expected url, secret_file: /PATH, timeout: DURATION)");
          }
        }
      }
      sinks.webhook = std::move(w);
    } else {
      return Fail(y, item.first, "alert_sinks: unknown sink '" + key + "' (expected log, mail, webhook)");
    }
  }
  return Status::Ok();
}

Status CheckAlertReferences(const PolicyConfig& config, const YAML::Node& section, const YamlText& y) {
  for (const AlertRule& a : config.alerts) {
    const YAML::Node node = section[a.name];
    const bool any_sink = !config.alert_sinks.log_file.empty() || config.alert_sinks.mail || config.alert_sinks.webhook;
    if (!any_sink) return Fail(y, node, "alert " + a.name + ": no alert_sinks configured (log:, mail: or webhook:)");
    for (const std::string& s : a.sinks) {
      const bool configured = s == "log"    ? !config.alert_sinks.log_file.empty()
                              : s == "mail" ? config.alert_sinks.mail.has_value()
                                            : config.alert_sinks.webhook.has_value();
      if (!configured) return Fail(y, node, "alert " + a.name + ": sink '" + s + "' is not configured in alert_sinks");
    }
    if (a.condition) {
      for (const std::string& c : a.condition->Fileclasses()) {
        Status known = RequireClass(config.fileclasses, config.source, c);
        if (!known.ok()) return Fail(y, node, "alert " + a.name + ": " + known.message());
      }
    }
  }
  return Status::Ok();
}

}  // namespace fathom::policy
