// policies_section.h — the `policies:` section of the policy configuration: each policy's
// keys read and checked (docs/policies.md). The loader's thread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "fathom/policy.h"
#include "policy/yaml_text.h"

namespace fathom::policy {

// An alert's `usage:` (a trigger with a high mark only); errors name alert `alert`.
Result<Trigger> ParseAlertUsage(const YAML::Node& node, const YamlText& yaml, const std::string& alert);

Status ParsePolicies(const YAML::Node& section, const YamlText& yaml, std::vector<Policy>& policies);

}  // namespace fathom::policy
