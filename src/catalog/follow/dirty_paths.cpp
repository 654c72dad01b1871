#include "catalog/follow/dirty_paths.h"

#include <algorithm>
#include <utility>

#include "fathom/event.h"

namespace fathom::catalog {

void DirtyPaths::Add(std::string_view path, std::string_view object) {
  auto it = order_.find(path);
  if (it == order_.end()) it = order_.emplace(std::string(path), Noted{next_++, {}}).first;
  if (!object.empty()) it->second.object = object;
}

void DirtyPaths::Move(std::string_view from, std::string_view to) {
  std::vector<std::pair<std::string, Noted>> moved;
  for (auto it = order_.lower_bound(from); it != order_.end();) {
    // Keys that start with `from` are adjacent; among them "a-b" sorts between "a" and "a/x".
    if (it->first.compare(0, from.size(), from) != 0) break;
    if (!PathUnder(it->first, from)) {
      ++it;
      continue;
    }
    moved.emplace_back(std::string(to) + it->first.substr(from.size()), std::move(it->second));
    it = order_.erase(it);
  }
  for (auto& [path, noted] : moved) {
    auto [it, added] = order_.emplace(std::move(path), noted);
    if (added) continue;
    it->second.order = std::min(it->second.order, noted.order);
    if (!noted.object.empty()) it->second.object = std::move(noted.object);
  }
}

void DirtyPaths::Remove(std::string_view path) {
  for (auto it = order_.lower_bound(path); it != order_.end();) {
    if (it->first.compare(0, path.size(), path) != 0) break;
    it = PathUnder(it->first, path) ? order_.erase(it) : std::next(it);
  }
}

std::vector<std::string> DirtyPaths::Paths() const {
  std::vector<std::string> paths;
  paths.reserve(order_.size());
  for (const auto& entry : order_) paths.push_back(entry.first);
  return paths;
}

std::vector<DirtyPath> DirtyPaths::Entries() const {
  std::vector<DirtyPath> entries;
  entries.reserve(order_.size());
  for (const auto& [path, noted] : order_) entries.push_back(DirtyPath{path, noted.object});
  return entries;
}

std::vector<DirtyPath> DirtyPaths::TakeEntries() {
  std::vector<std::pair<uint64_t, DirtyPath>> noted;
  noted.reserve(order_.size());
  for (auto& [path, n] : order_) noted.emplace_back(n.order, DirtyPath{path, std::move(n.object)});
  order_.clear();
  next_ = 0;
  // Parents first: a path's depth is its number of separators.
  auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
  std::stable_sort(noted.begin(), noted.end(), [&](const auto& a, const auto& b) {
    const auto da = depth(a.second.path), db = depth(b.second.path);
    return da != db ? da < db : a.first < b.first;
  });
  std::vector<DirtyPath> entries;
  entries.reserve(noted.size());
  for (auto& [order, entry] : noted) entries.push_back(std::move(entry));
  return entries;
}

std::vector<std::string> DirtyPaths::Take() {
  std::vector<std::string> paths;
  for (DirtyPath& entry : TakeEntries()) paths.push_back(std::move(entry.path));
  return paths;
}

}  // namespace fathom::catalog
