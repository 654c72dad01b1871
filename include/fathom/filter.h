// filter.h — which events a consumer wants: kinds and include/exclude globs.
//
// A glob without '/' is matched against the last path component, a glob with '/' against the
// whole absolute path ('*' may then cross '/'). An event passes when its kinds intersect the
// wanted kinds (OVERFLOW always passes), it matches no --exclude glob, and either no
// --include is given or it matches one. Immutable after construction; safe to share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/event.h"

namespace fathom {

struct FilterOptions {
  uint32_t kinds = kind::kDefault;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // Exact paths never reported (a store inside the watched tree must not watch itself).
  std::vector<std::string> ignore_paths;
};

class EventFilter {
 public:
  explicit EventFilter(FilterOptions options);
  bool Matches(const Event& event) const;

 private:
  FilterOptions options_;
};

}  // namespace fathom
