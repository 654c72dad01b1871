#include "sources/poll/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>

#include <spdlog/spdlog.h>

namespace fathom::poll_internal {
namespace {

uint64_t IdentityKey(uint64_t dev, uint64_t ino) {
  return ino * 0x9e3779b97f4a7c15ull ^ (dev + 0x632be59bd9b4e019ull);
}

uint64_t NameKey(uint32_t parent, std::string_view name) {
  return std::hash<std::string_view>{}(name) * 31 + parent;
}

bool SeveralLinks(const Object& o) { return !S_ISDIR(o.mode) && o.nlink > 1; }

Object FromAttrs(const catalog::Attrs& a, uint32_t parent) {
  Object o;
  o.dev = a.dev;
  o.ino = a.ino;
  o.parent = parent;
  o.mode = a.mode;
  o.uid = a.uid;
  o.gid = a.gid;
  o.nlink = static_cast<uint32_t>(a.nlink);
  o.size = a.size;
  o.mtime_ns = a.mtime_ns;
  o.ctime_ns = a.ctime_ns;
  return o;
}

}  // namespace

std::string Snapshot::Path(uint32_t i) const {
  std::vector<uint32_t> chain;
  for (uint32_t j = i; j != kNoParent; j = objects_[j].parent) chain.push_back(j);
  std::string path(name(chain.back()));
  for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
    if (path != "/") path += '/';
    path += name(*it);
  }
  return path;
}

std::string_view Snapshot::RootOf(uint32_t i) const {
  while (objects_[i].parent != kNoParent) i = objects_[i].parent;
  return name(i);
}

uint32_t Snapshot::Depth(uint32_t i) const {
  uint32_t d = 0;
  for (; objects_[i].parent != kNoParent; i = objects_[i].parent) ++d;
  return d;
}

uint32_t Snapshot::Match(const Object& o, std::string_view nm, uint32_t parent_here) const {
  auto it = by_identity_.find(IdentityKey(o.dev, o.ino));
  if (it == by_identity_.end()) return kNoParent;
  for (uint32_t j = it->second; j != kNoParent; j = same_identity_[j]) {
    const Object& c = objects_[j];
    if (c.dev != o.dev || c.ino != o.ino) continue;
    if (!SeveralLinks(o) && !SeveralLinks(c)) return j;
    if (c.parent == parent_here && name(j) == nm) return j;
  }
  return kNoParent;
}

uint32_t Snapshot::Child(uint32_t parent, std::string_view nm) const {
  auto it = by_name_.find(NameKey(parent, nm));
  if (it == by_name_.end()) return kNoParent;
  for (uint32_t j = it->second; j != kNoParent; j = same_slot_[j]) {
    if (objects_[j].parent == parent && name(j) == nm) return j;
  }
  return kNoParent;
}

uint32_t Snapshot::Add(const Object& o, std::string_view nm) {
  const auto i = static_cast<uint32_t>(objects_.size());
  objects_.push_back(o);
  objects_.back().name_off = names_.size();
  objects_.back().name_len = static_cast<uint32_t>(nm.size());
  names_.append(nm);
  auto [id_it, id_new] = by_identity_.try_emplace(IdentityKey(o.dev, o.ino), i);
  same_identity_.push_back(id_new ? kNoParent : std::exchange(id_it->second, i));
  auto [name_it, name_new] = by_name_.try_emplace(NameKey(o.parent, nm), i);
  same_slot_.push_back(name_new ? kNoParent : std::exchange(name_it->second, i));
  return i;
}

void SnapshotBuilder::OnChunk(scan::ScanChunk&& chunk) {
  uint32_t dir;
  if (chunk.parent_token == 0 && chunk.first) {
    dir = snap_.Add(FromAttrs(chunk.attrs, kNoParent), chunk.path);
    dirs_[chunk.dir_token] = dir;
  } else {
    auto it = dirs_.find(chunk.dir_token);
    if (it == dirs_.end()) return;  // cannot happen: entries come before their chunks
    dir = it->second;
  }
  for (const scan::ScanEntry& e : chunk.entries) {
    const uint32_t i = snap_.Add(FromAttrs(e.attrs, dir), e.name);
    if (e.dir_token != 0) dirs_[e.dir_token] = i;
  }
  if (chunk.last) dirs_.erase(chunk.dir_token);
}

void SnapshotBuilder::OnProblem(scan::ScanProblem&& problem) {
  ++problems_;
  spdlog::warn("poll: {}", problem.message);
}

Snapshot SnapshotBuilder::Take() {
  dirs_.clear();
  Snapshot out = std::move(snap_);
  snap_ = Snapshot();
  return out;
}

}  // namespace fathom::poll_internal
