#include "sources/lustre/fid_path_cache.h"

#include <utility>
#include <vector>

namespace fathom::lustre_source {
namespace {

// The first key of every path strictly below `path` sorts after path + "/" and before
// path + "0" ('0' follows '/' in ASCII).
std::string LowerBound(const std::string& path) { return path + "/"; }
std::string UpperBound(const std::string& path) { return path + "0"; }

}  // namespace

FidPathCache::FidPathCache(size_t capacity) : capacity_(capacity) {
  root_.absolute = true;
  root_.is_dir = true;
}

FidPathCache::Entry* FidPathCache::Touch(const lustre::Fid& fid) {
  if (fid == lustre::kRootFid) return &root_;
  auto it = index_.find(fid);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &it->second->entry;
}

const FidPathCache::Entry* FidPathCache::Find(const lustre::Fid& fid) { return Touch(fid); }

const FidPathCache::Entry* FidPathCache::FindParent(const lustre::Fid& fid) {
  Entry* e = Touch(fid);
  if (e != nullptr) e->is_dir = true;
  return e;
}

void FidPathCache::NoteResolved(const lustre::Fid& fid, const std::string& path) {
  auto it = index_.find(fid);
  if (it == index_.end() || it->second->entry.absolute) return;
  Entry& e = it->second->entry;
  e.path = path;
  e.noted = generation_;
  e.is_dir = true;
}

void FidPathCache::Learn(const lustre::Fid& fid, const lustre::Fid& parent, std::string name,
                         bool is_dir) {
  Entry e;
  e.parent = parent;
  e.name = std::move(name);
  e.is_dir = is_dir;
  Put(fid, std::move(e));
}

void FidPathCache::StoreAbsolute(const lustre::Fid& fid, std::string path) {
  Entry e;
  e.path = std::move(path);
  e.absolute = true;
  Put(fid, std::move(e));
}

void FidPathCache::NoteDirectory(const lustre::Fid& fid) {
  auto it = index_.find(fid);
  if (it != index_.end()) it->second->entry.is_dir = true;
}

void FidPathCache::NoteLinked(const lustre::Fid& fid) {
  auto it = index_.find(fid);
  if (it != index_.end()) it->second->entry.linked = true;
}

bool FidPathCache::IsLinked(const lustre::Fid& fid) const {
  auto it = index_.find(fid);
  return it != index_.end() && it->second->entry.linked;
}

bool FidPathCache::IsDirectory(const lustre::Fid& fid) const {
  if (fid == lustre::kRootFid) return true;
  auto it = index_.find(fid);
  return it != index_.end() && it->second->entry.is_dir;
}

void FidPathCache::Moved(const lustre::Fid& fid, const lustre::Fid& parent, std::string name,
                         const std::string* old_path, const std::string* new_path) {
  const bool is_dir = IsDirectory(fid);
  if (old_path != nullptr) {
    if (new_path != nullptr) {
      MoveAbsoluteUnder(*old_path, *new_path);
    } else {
      DropAbsoluteUnder(*old_path);
    }
  }
  Learn(fid, parent, std::move(name), is_dir);
}

void FidPathCache::Forget(const lustre::Fid& fid, const std::string* path) {
  if (path != nullptr) DropAbsoluteUnder(*path);
  auto it = index_.find(fid);
  if (it != index_.end()) Erase(it->second);
}

void FidPathCache::Put(const lustre::Fid& fid, Entry entry) {
  if (capacity_ == 0 || fid == lustre::kRootFid) return;
  auto it = index_.find(fid);
  if (it != index_.end()) {
    Node& node = *it->second;
    if (node.entry.absolute) by_path_.erase(node.entry.path);
    if (node.entry.is_dir) DirectoryChanged();
    entry.is_dir = entry.is_dir || node.entry.is_dir;
    node.entry = std::move(entry);
    lru_.splice(lru_.begin(), lru_, it->second);
  } else {
    if (lru_.size() >= capacity_) Erase(std::prev(lru_.end()));
    lru_.push_front(Node{fid, std::move(entry)});
    index_.emplace(fid, lru_.begin());
  }
  const Entry& e = lru_.front().entry;
  if (e.absolute) {
    // Two FIDs cannot share a path; an older absolute entry for it is stale.
    auto [pos, inserted] = by_path_.try_emplace(e.path, fid);
    if (!inserted && pos->second != fid) {
      const lustre::Fid stale = pos->second;
      pos->second = fid;
      auto old = index_.find(stale);
      if (old != index_.end()) Erase(old->second);  // its path is fid's now: by_path_ keeps it
    }
  }
}

void FidPathCache::Erase(List::iterator it) {
  if (it->entry.is_dir) DirectoryChanged();
  if (it->entry.absolute) {
    auto pos = by_path_.find(it->entry.path);
    if (pos != by_path_.end() && pos->second == it->fid) by_path_.erase(pos);
  }
  index_.erase(it->fid);
  lru_.erase(it);
}

void FidPathCache::DropAbsoluteUnder(const std::string& path) {
  if (path.empty()) return;  // the root is never removed; nothing lies "below" an unknown path
  auto first = by_path_.lower_bound(LowerBound(path));
  auto last = by_path_.lower_bound(UpperBound(path));
  if (first == last) return;
  DirectoryChanged();
  std::vector<lustre::Fid> gone;
  for (auto it = first; it != last; ++it) gone.push_back(it->second);
  by_path_.erase(first, last);
  for (const auto& fid : gone) {
    auto it = index_.find(fid);
    if (it != index_.end()) Erase(it->second);
  }
}

void FidPathCache::MoveAbsoluteUnder(const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return;
  auto first = by_path_.lower_bound(LowerBound(from));
  auto last = by_path_.lower_bound(UpperBound(from));
  if (first == last) return;
  DirectoryChanged();
  std::vector<std::pair<std::string, lustre::Fid>> moved;
  for (auto it = first; it != last; ++it) {
    moved.emplace_back(
        (to.empty() ? it->first.substr(from.size() + 1) : to + it->first.substr(from.size())),
        it->second);
  }
  by_path_.erase(first, last);
  for (auto& [path, fid] : moved) {
    auto it = index_.find(fid);
    if (it == index_.end()) continue;
    it->second->entry.path = path;
    by_path_[std::move(path)] = fid;
  }
}

}  // namespace fathom::lustre_source
