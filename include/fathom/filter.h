// filter.h — which events a consumer wants: kinds and include/exclude globs.
//
// Globs are matched against the event's path relative to its root (rsync/gitignore-like; the
// full rules are in src/filter/path_glob.h and docs/formats.md): a glob without '/' matches
// the name of any path component at any depth (`*.tmp`, `build`); a glob with '/' is anchored
// at the root (`sub/*`, `/top.txt`); `**` matches across directories (`src/**/*.c`); a path
// matches when it or one of its ancestors does, so excluding a directory excludes everything
// below it; a trailing '/' matches directories only (`cache/`).
// An event passes when its kinds intersect the wanted kinds (OVERFLOW always passes), it
// matches no --exclude glob, and either no --include is given or it matches one. Events
// about a root itself (its DELETE_SELF, say) are not subject to globs.
// Immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/event.h"

namespace fathom {
namespace filter_internal {
class PathGlob;
}

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
  ~EventFilter();
  EventFilter(EventFilter&&) noexcept;
  EventFilter& operator=(EventFilter&&) noexcept;

  bool Matches(const Event& event) const;
  // Whether directory `dir` (absolute, below one of `roots`; judged below the outermost one,
  // as a recursive source reports it) is excluded, and with it everything below it: a
  // recursive source need not watch inside it.
  bool ExcludesDirectory(const std::vector<std::string>& roots, std::string_view dir) const;

 private:
  FilterOptions options_;
  std::vector<filter_internal::PathGlob> include_;
  std::vector<filter_internal::PathGlob> exclude_;
};

}  // namespace fathom
