#include "catalog/report/entry_source.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <unordered_set>

namespace fathom::catalog::report {
namespace {

bool InSelection(const Selection& s, const Attrs& a) {
  if (s.uid && a.uid != *s.uid) return false;
  if (s.gid && a.gid != *s.gid) return false;
  if (s.type && (a.mode & S_IFMT) != *s.type) return false;
  if (s.min_size && a.size < *s.min_size) return false;
  if (s.max_size && a.size > *s.max_size) return false;
  if (s.min_mtime_ns && a.mtime_ns < *s.min_mtime_ns) return false;
  if (s.max_mtime_ns && a.mtime_ns > *s.max_mtime_ns) return false;
  return true;
}

// The directory a walk for `glob` starts at: its part before the first wildcard, cut back to
// a '/' ("/fs/dir.3/*" -> "/fs/dir.3", "/fs/a*" -> "/fs").
std::string LiteralDirectory(std::string_view glob) {
  size_t wild = glob.find_first_of("*?[");
  if (wild == std::string_view::npos) {
    std::string dir(glob);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir;
  }
  size_t slash = glob.rfind('/', wild);
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(glob.substr(0, slash));
}

}  // namespace

bool PathFilterMatches(std::string_view glob, std::string_view path) {
  std::string pattern(glob);
  while (pattern.size() > 1 && pattern.back() == '/') pattern.pop_back();
  std::string prefix;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      prefix.assign(path.substr(0, i));
      if (fnmatch(pattern.c_str(), prefix.c_str(), 0) == 0) return true;
    }
  }
  return false;
}

std::string PathFilterPreamble(std::string_view glob) {
  return glob.empty() ? "" : "filter path: " + std::string(glob) + "\n";
}

Status ForEachObject(Catalog& catalog, const Selection& selection, const std::string& path_glob,
                     const std::function<bool(const Visit&)>& fn) {
  std::unordered_set<EntryId> linked_seen;  // objects with several names already handed
  auto once = [&](const Visit& visit) {
    const Attrs& a = visit.node.attrs;
    if (!S_ISDIR(a.mode) && a.nlink > 1 && !linked_seen.insert(visit.node.id).second) return true;
    return fn(visit);
  };
  if (path_glob.empty()) return catalog.Select(selection, once);
  std::string start = LiteralDirectory(path_glob);
  FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, catalog.Stat(start));
  if (!node) return Status::Ok();
  return catalog.Walk(start, [&](const Visit& visit) {
    if (!InSelection(selection, visit.node.attrs) || !PathFilterMatches(path_glob, visit.path)) {
      return WalkStep::kContinue;
    }
    return once(visit) ? WalkStep::kContinue : WalkStep::kStop;
  });
}

}  // namespace fathom::catalog::report
