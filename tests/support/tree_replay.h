// tree_replay.h — what a consumer holds after replaying a stream of events, and the real
// tree to compare it with: the yardstick of the convergence tests.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "fathom/event.h"

namespace fathom::testing {

// The paths (relative to `root`) a consumer believes exist after replaying `events` from an
// initial `known` set: CREATE adds; DELETE removes the path and everything below it; a
// MOVED_FROM removes the path and everything below it; a MOVED_TO replaces whatever was at its
// path (a rename replaces its target) and, paired with the MOVED_FROM before it, carries the
// moved directory's descendants along.
inline std::set<std::string> Replay(std::set<std::string> known, const std::vector<Event>& events) {
  auto take_below = [&](const std::string& dir) {
    std::vector<std::string> out;
    const std::string prefix = dir + "/";
    auto it = known.lower_bound(prefix);
    while (it != known.end() && it->starts_with(prefix)) {
      out.push_back(*it);
      it = known.erase(it);
    }
    known.erase(dir);
    return out;
  };
  std::vector<std::string> carried;
  std::string carried_from;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const std::string rel = RelativePath(e.root, e.path);
    if (e.mask & kind::kCreate) known.insert(rel);
    if (e.mask & kind::kDelete) take_below(rel);
    if (e.mask & kind::kMovedFrom) {
      const bool paired = i + 1 < events.size() && (events[i + 1].mask & kind::kMovedTo) &&
                          events[i + 1].cookie == e.cookie;
      const bool existed = known.contains(rel);
      std::vector<std::string> below = take_below(rel);
      carried.clear();
      if (paired && existed) {
        carried = std::move(below);
        carried_from = rel;
      }
    }
    if (e.mask & kind::kMovedTo) {
      take_below(rel);
      known.insert(rel);
      for (const auto& p : carried) known.insert(rel + p.substr(carried_from.size()));
      carried.clear();
    }
  }
  return known;
}

// Every path below `root` (relative to it, "/a/b"), directories and files alike.
inline std::set<std::string> RealTree(const std::string& root) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    out.insert(RelativePath(root, e.path().string()));
  }
  return out;
}

// Up to 30 lines of "missing P" / "extra P" between what should be and what was replayed.
inline std::string TreeDifferences(const std::set<std::string>& want,
                                   const std::set<std::string>& got) {
  std::string out;
  int shown = 0;
  for (const auto& p : want) {
    if (!got.contains(p) && shown++ < 30) out += "  missing " + p + "\n";
  }
  for (const auto& p : got) {
    if (!want.contains(p) && shown++ < 30) out += "  extra   " + p + "\n";
  }
  return out;
}

}  // namespace fathom::testing
