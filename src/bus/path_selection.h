// path_selection.h — which bus events a subscriber delivers: a path prefix (the path itself and,
// recursively or one level deep, what lies under it) and kinds (OVERFLOW always passes).
// Immutable after construction; any thread.
#pragma once

#include <cstdint>
#include <string>

#include "fathom/event.h"

namespace fathom::bus::internal {

class PathSelection {
 public:
  PathSelection(std::string prefix, bool recursive, uint32_t kinds);
  bool Matches(const Event& event) const;

 private:
  std::string prefix_;  // without a trailing '/' ("" = everything)
  bool recursive_;
  uint32_t kinds_;
};

}  // namespace fathom::bus::internal
