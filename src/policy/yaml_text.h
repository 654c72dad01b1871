// yaml_text.h — where a YAML node of the policy configuration is, for messages: "FILE: line L,
// column C: ", and conditions parsed from scalars with their place in the file. The loader's
// thread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "fathom/condition.h"
#include "fathom/status.h"

namespace fathom::policy {

struct YamlText {
  std::string_view text;
  std::string source;

  std::string At(const YAML::Mark& mark) const;
  // The column of a scalar's first character: after its opening quote, if it has one.
  int TextColumn(const YAML::Mark& mark) const;
  // The condition a scalar holds; errors name `what` ("fileclass a", "policy purge, rule r").
  Result<condition::Condition> ConditionOf(const YAML::Node& scalar, const std::string& what) const;
};

}  // namespace fathom::policy
