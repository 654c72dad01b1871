#include <algorithm>

#include "fathom/filter.h"
#include "filter/path_glob.h"

namespace fathom {
namespace {

using filter_internal::PathGlob;

std::vector<PathGlob> Compile(const std::vector<std::string>& patterns) {
  std::vector<PathGlob> globs;
  globs.reserve(patterns.size());
  for (const auto& p : patterns) globs.emplace_back(p);
  return globs;
}

// `path` relative to `root` without a leading '/'; "" for the root itself or a path outside it.
std::string_view Relative(std::string_view root, std::string_view path) {
  if (root == "/") return path.empty() ? path : path.substr(1);
  if (path.size() <= root.size() + 1 || !path.starts_with(root) || path[root.size()] != '/') return {};
  return path.substr(root.size() + 1);
}

bool AnyMatches(const std::vector<PathGlob>& globs, std::string_view relative, bool is_dir) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const PathGlob& g) { return g.Matches(relative, is_dir); });
}

}  // namespace

EventFilter::EventFilter(FilterOptions options)
    : options_(std::move(options)),
      include_(Compile(options_.include)),
      exclude_(Compile(options_.exclude)) {}

EventFilter::~EventFilter() = default;
EventFilter::EventFilter(EventFilter&&) noexcept = default;
EventFilter& EventFilter::operator=(EventFilter&&) noexcept = default;

bool EventFilter::Matches(const Event& event) const {
  if (event.mask & kind::kAlwaysDelivered) return true;
  if (!(event.mask & options_.kinds & kind::kAll)) return false;
  for (const auto& p : options_.ignore_paths) {
    if (event.path == p) return false;
  }
  const std::string_view relative = Relative(event.root, event.path);
  if (relative.empty()) return true;
  const bool is_dir = (event.mask & kind::kIsDir) != 0;
  if (AnyMatches(exclude_, relative, is_dir)) return false;
  return include_.empty() || AnyMatches(include_, relative, is_dir);
}

bool EventFilter::ExcludesDirectory(const std::vector<std::string>& roots, std::string_view dir) const {
  // Below the outermost root that holds it: a recursive source reports a tree under it.
  std::string_view relative;
  for (const auto& root : roots) {
    const std::string_view r = Relative(root, dir);
    if (r.size() > relative.size()) relative = r;
  }
  return !relative.empty() && AnyMatches(exclude_, relative, true);
}

}  // namespace fathom
