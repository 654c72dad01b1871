#include "policy/yaml_text.h"

namespace fathom::policy {

std::string YamlText::At(const YAML::Mark& mark) const {
  if (mark.is_null()) return source + ": ";
  return source + ": line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) + ": ";
}

int YamlText::TextColumn(const YAML::Mark& mark) const {
  size_t line_start = 0;
  for (int line = 0; line < mark.line && line_start != std::string_view::npos; ++line) {
    line_start = text.find('\n', line_start);
    if (line_start != std::string_view::npos) ++line_start;
  }
  const size_t at = line_start == std::string_view::npos ? text.size() : line_start + mark.column;
  const bool quoted = at < text.size() && (text[at] == '"' || text[at] == '\'');
  return mark.column + 1 + (quoted ? 1 : 0);
}

Result<condition::Condition> YamlText::ConditionOf(const YAML::Node& scalar, const std::string& what) const {
  if (!scalar.IsScalar()) return Status::Error(At(scalar.Mark()) + what + ": expected a condition");
  return condition::Condition::Parse(scalar.Scalar(), source + ", " + what, scalar.Mark().line + 1,
                                     TextColumn(scalar.Mark()));
}

}  // namespace fathom::policy
