// alerts_section.h — the `alerts:`, `alert_sinks:` and `alert_check_every:` sections of the
// policy configuration read and checked (docs/policies.md). The loader's thread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "fathom/policy.h"
#include "policy/yaml_text.h"

namespace fathom::policy {

Status ParseAlerts(const YAML::Node& section, const YamlText& yaml, std::vector<AlertRule>& alerts);
Status ParseAlertSinks(const YAML::Node& section, const YamlText& yaml, AlertSinks& sinks);
// Every sink an alert names is configured, every class its condition names is defined.
Status CheckAlertReferences(const PolicyConfig& config, const YAML::Node& section, const YamlText& yaml);

}  // namespace fathom::policy
