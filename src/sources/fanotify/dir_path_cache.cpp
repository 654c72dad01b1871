#include "sources/fanotify/dir_path_cache.h"

#include <utility>
#include <vector>

namespace fathom::fanotify_internal {
namespace {

// The absolute entries at `dir` or below it. Entries below share the prefix "dir/", which
// keeps them contiguous in the ordered index ("dir-x" sorts between "dir" and "dir/").
std::vector<std::pair<std::string, HandleKey>> TakeAtOrUnder(
    std::map<std::string, HandleKey>& by_path, const std::string& dir) {
  std::vector<std::pair<std::string, HandleKey>> taken;
  auto exact = by_path.find(dir);
  if (exact != by_path.end()) {
    taken.emplace_back(exact->first, exact->second);
    by_path.erase(exact);
  }
  const std::string prefix = dir == "/" ? dir : dir + "/";
  for (auto it = by_path.lower_bound(prefix);
       it != by_path.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    taken.emplace_back(it->first, std::move(it->second));
    it = by_path.erase(it);
  }
  return taken;
}

}  // namespace

DirPathCache::DirPathCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

const DirPathCache::Entry* DirPathCache::Find(const HandleKey& key) {
  if (last_pinned_ != nullptr && last_pinned_->first == key) return &last_pinned_->second;
  auto pin = pinned_.find(key);
  if (pin != pinned_.end()) {
    last_pinned_ = &*pin;
    return &pin->second;
  }
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &it->second->entry;
}

void DirPathCache::Pin(const HandleKey& key, std::string path) {
  auto it = index_.find(key);
  if (it != index_.end()) Erase(it->second);
  Entry e;
  e.path = std::move(path);
  e.absolute = true;
  pinned_[key] = std::move(e);
}

void DirPathCache::Learn(const HandleKey& key, const HandleKey& parent, std::string name) {
  if (pinned_.contains(key)) return;
  Entry e;
  e.parent = parent;
  e.name = std::move(name);
  Put(key, std::move(e));
}

void DirPathCache::StoreAbsolute(const HandleKey& key, std::string path) {
  if (pinned_.contains(key)) return;
  Entry e;
  e.path = std::move(path);
  e.absolute = true;
  Put(key, std::move(e));
}

void DirPathCache::Moved(const HandleKey& key, const HandleKey& parent, std::string name,
                         const std::string& old_path, const std::string& new_path) {
  if (pinned_.contains(key)) return;
  if (!old_path.empty()) {
    if (new_path.empty()) {
      DropAbsoluteUnder(old_path);
    } else {
      for (auto& [path, k] : TakeAtOrUnder(by_path_, old_path)) {
        std::string now = new_path + path.substr(old_path.size());
        auto it = index_.find(k);
        if (it == index_.end()) continue;
        it->second->entry.path = now;
        by_path_[std::move(now)] = std::move(k);
      }
    }
  }
  Learn(key, parent, std::move(name));
}

void DirPathCache::Forget(const HandleKey& key, const std::string& path) {
  auto it = index_.find(key);
  if (it != index_.end()) Erase(it->second);
  if (!path.empty()) DropAbsoluteUnder(path);
}

void DirPathCache::Clear() {
  lru_.clear();
  index_.clear();
  by_path_.clear();
}

void DirPathCache::Put(const HandleKey& key, Entry entry) {
  auto it = index_.find(key);
  if (it != index_.end()) Erase(it->second);
  if (entry.absolute) by_path_[entry.path] = key;
  lru_.push_front(Node{key, std::move(entry)});
  index_[key] = lru_.begin();
  while (lru_.size() > capacity_) Erase(std::prev(lru_.end()));
}

void DirPathCache::Erase(List::iterator it) {
  if (it->entry.absolute) {
    auto p = by_path_.find(it->entry.path);
    if (p != by_path_.end() && p->second == it->key) by_path_.erase(p);
  }
  index_.erase(it->key);
  lru_.erase(it);
}

void DirPathCache::DropAbsoluteUnder(const std::string& path) {
  for (auto& [p, k] : TakeAtOrUnder(by_path_, path)) {
    auto it = index_.find(k);
    if (it != index_.end()) {
      it->second->entry.absolute = false;  // already out of the path index
      Erase(it->second);
    }
  }
}

}  // namespace fathom::fanotify_internal
