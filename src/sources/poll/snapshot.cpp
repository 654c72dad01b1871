#include "sources/poll/snapshot.h"

#include <sys/stat.h>

#include <algorithm>

#include <spdlog/spdlog.h>

namespace fathom::poll_internal {
namespace {

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
  auto less = [&](uint32_t i, const Object& key) {
    const Object& c = objects_[i];
    return c.dev != key.dev ? c.dev < key.dev : c.ino < key.ino;
  };
  for (auto it = std::lower_bound(by_identity_.begin(), by_identity_.end(), o, less);
       it != by_identity_.end(); ++it) {
    const Object& c = objects_[*it];
    if (c.dev != o.dev || c.ino != o.ino) break;
    if (!SeveralLinks(o) && !SeveralLinks(c)) return *it;
    if (c.parent == parent_here && name(*it) == nm) return *it;
  }
  return kNoParent;
}

uint32_t Snapshot::Add(const Object& o, std::string_view nm) {
  const auto i = static_cast<uint32_t>(objects_.size());
  objects_.push_back(o);
  objects_.back().name_off = names_.size();
  objects_.back().name_len = static_cast<uint32_t>(nm.size());
  names_.append(nm);
  return i;
}

void Snapshot::SortIdentities() {
  by_identity_.resize(objects_.size());
  for (uint32_t i = 0; i < by_identity_.size(); ++i) by_identity_[i] = i;
  std::sort(by_identity_.begin(), by_identity_.end(), [&](uint32_t a, uint32_t b) {
    const Object& x = objects_[a];
    const Object& y = objects_[b];
    if (x.dev != y.dev) return x.dev < y.dev;
    return x.ino != y.ino ? x.ino < y.ino : a < b;
  });
}

void Snapshot::Seal() {
  SortIdentities();
  // A name moved during the pass from a part already read to a part not yet read was seen
  // twice: keep its first sighting, drop the later ones and everything below them (the next
  // pass sees it once, where it is).
  std::vector<bool> drop(objects_.size(), false);
  bool any = false;
  for (size_t k = 1, first = 0; k < by_identity_.size(); ++k) {
    const Object& a = objects_[by_identity_[first]];
    const Object& b = objects_[by_identity_[k]];
    if (a.dev != b.dev || a.ino != b.ino || SeveralLinks(a) || SeveralLinks(b)) {
      first = k;
      continue;
    }
    drop[by_identity_[k]] = any = true;
  }
  if (any) {
    std::vector<Object> kept;
    std::string kept_names;
    std::vector<uint32_t> index_of(objects_.size(), kNoParent);
    for (uint32_t i = 0; i < objects_.size(); ++i) {
      const uint32_t parent = objects_[i].parent;
      if (drop[i] || (parent != kNoParent && index_of[parent] == kNoParent)) continue;
      index_of[i] = static_cast<uint32_t>(kept.size());
      kept.push_back(objects_[i]);
      kept.back().parent = parent == kNoParent ? kNoParent : index_of[parent];
      kept.back().name_off = kept_names.size();
      kept_names.append(name(i));
    }
    objects_ = std::move(kept);
    names_ = std::move(kept_names);
    SortIdentities();
  }
  objects_.shrink_to_fit();
  names_.shrink_to_fit();
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
  out.Seal();
  return out;
}

}  // namespace fathom::poll_internal
