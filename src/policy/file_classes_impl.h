// file_classes_impl.h — one file class's definition, shared by FileClasses (evaluation) and
// the configuration loader (which builds and checks them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fathom/policy.h"

namespace fathom::policy {

struct FileClasses::Definition {
  enum class Kind { kCondition, kUnion, kInter, kNot } kind = Kind::kCondition;
  std::optional<condition::Condition> condition;  // kCondition
  std::vector<std::string> members;                // the classes combined (kNot: one)
  int line = 0, column = 0;                        // where it is defined, for messages
};

}  // namespace fathom::policy
