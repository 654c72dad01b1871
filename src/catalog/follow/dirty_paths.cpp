#include "catalog/follow/dirty_paths.h"

#include <algorithm>
#include <utility>

#include "fathom/event.h"

namespace fathom::catalog {

void DirtyPaths::Add(std::string_view path) {
  if (order_.find(path) != order_.end()) return;
  order_.emplace(std::string(path), next_++);
}

void DirtyPaths::Move(std::string_view from, std::string_view to) {
  std::vector<std::pair<std::string, uint64_t>> moved;
  for (auto it = order_.lower_bound(from); it != order_.end();) {
    // Keys that start with `from` are adjacent; among them "a-b" sorts between "a" and "a/x".
    if (it->first.compare(0, from.size(), from) != 0) break;
    if (!PathUnder(it->first, from)) {
      ++it;
      continue;
    }
    moved.emplace_back(std::string(to) + it->first.substr(from.size()), it->second);
    it = order_.erase(it);
  }
  for (auto& [path, order] : moved) {
    auto [it, added] = order_.emplace(std::move(path), order);
    if (!added) it->second = std::min(it->second, order);
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

std::vector<std::string> DirtyPaths::Take() {
  std::vector<std::pair<uint64_t, std::string>> noted;
  noted.reserve(order_.size());
  for (auto& [path, order] : order_) noted.emplace_back(order, path);
  order_.clear();
  next_ = 0;
  // Parents first: a path's depth is its number of separators.
  auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
  std::stable_sort(noted.begin(), noted.end(), [&](const auto& a, const auto& b) {
    const auto da = depth(a.second), db = depth(b.second);
    return da != db ? da < db : a.first < b.first;
  });
  std::vector<std::string> paths;
  paths.reserve(noted.size());
  for (auto& [order, path] : noted) paths.push_back(std::move(path));
  return paths;
}

}  // namespace fathom::catalog
