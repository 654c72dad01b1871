// consumer_filter.h — which events a consumer receives: its subscription (path prefix,
// recursion, kinds; OVERFLOW always) AND its client key's grants. A plain value; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/event.h"

namespace fathom::aggregator {

struct ConsumerFilter {
  std::string prefix;               // "" = everything; else absolute, no trailing '/'
  bool recursive = true;            // false: the prefix and its direct entries only
  uint32_t kinds = kind::kAll;
  std::vector<std::string> grants;  // granted prefixes; a client without a list is denied all

  bool Matches(const Event& e) const;
  // Whether every event that reports a kind (a bit of kind::kAll) matches: no prefix, every
  // kind, a grant of "/".
  bool MatchesEverything() const;
  bool operator==(const ConsumerFilter&) const = default;
};

// "/a/b/" -> "/a/b", "/" -> "".
std::string NormalizePrefix(std::string prefix);

}  // namespace fathom::aggregator
