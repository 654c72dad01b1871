#include <fnmatch.h>

#include <algorithm>

#include "fathom/filter.h"

namespace fathom {
namespace {

bool GlobMatches(const std::string& glob, const std::string& path) {
  if (glob.find('/') != std::string::npos) return fnmatch(glob.c_str(), path.c_str(), 0) == 0;
  auto slash = path.rfind('/');
  const char* base = slash == std::string::npos ? path.c_str() : path.c_str() + slash + 1;
  return fnmatch(glob.c_str(), base, 0) == 0;
}

}  // namespace

EventFilter::EventFilter(FilterOptions options) : options_(std::move(options)) {}

bool EventFilter::Matches(const Event& event) const {
  if (event.mask & kind::kAlwaysDelivered) return true;
  if (!(event.mask & options_.kinds & kind::kAll)) return false;
  for (const auto& p : options_.ignore_paths) {
    if (event.path == p) return false;
  }
  for (const auto& g : options_.exclude) {
    if (GlobMatches(g, event.path)) return false;
  }
  if (options_.include.empty()) return true;
  return std::any_of(options_.include.begin(), options_.include.end(),
                     [&](const std::string& g) { return GlobMatches(g, event.path); });
}

}  // namespace fathom
