// consumer_filter.cpp — subscription and grant matching.
#include "aggregator/consumer_filter.h"

#include "security/client_list.h"

namespace fathom::aggregator {

std::string NormalizePrefix(std::string prefix) {
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return prefix;
}

bool ConsumerFilter::Matches(const Event& e) const {
  if ((e.mask & kinds & ~kind::kIsDir) == 0 && (e.mask & kind::kAlwaysDelivered) == 0) {
    return false;
  }
  bool granted = false;
  for (const auto& g : grants) {
    if (PathUnder(e.path, g)) {
      granted = true;
      break;
    }
  }
  if (!granted) return false;
  return PathSelected(e.path, prefix, recursive);
}

bool ConsumerFilter::MatchesEverything() const {
  if (!prefix.empty() || (kinds & kind::kAll) != kind::kAll) return false;
  for (const auto& g : grants) {
    if (g == "/" || g.empty()) return true;  // PathUnder() of any path
  }
  return false;
}

}  // namespace fathom::aggregator
