#include "sources/poll/snapshot_diff.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace fathom::poll_internal {
namespace {

// Where the consumer believes each object is while the events are being emitted: the old
// snapshot's objects (0..n-1, moved as renames are emitted) and the new snapshot's created
// objects (n + their new index, placed as they are created).
class View {
 public:
  View(const Snapshot& before, const Snapshot& after) : before_(before), after_(after) {
    parent_.resize(before.size() + after.size(), kNoParent);
    name_from_after_.resize(before.size(), false);
    for (uint32_t i = 0; i < before.size(); ++i) parent_[i] = before.at(i).parent;
  }
  void Place(size_t node, size_t parent) { parent_[node] = static_cast<uint32_t>(parent); }
  void Rename(uint32_t old_node, size_t parent, uint32_t new_index) {
    Place(old_node, parent);
    name_from_after_[old_node] = true;
    renamed_to_[old_node] = new_index;
  }
  std::string Path(size_t node) const {
    std::vector<size_t> chain;
    for (size_t j = node; j != kNoParent; j = parent_[j]) chain.push_back(j);
    std::string path(Name(chain.back()));
    for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
      if (path != "/") path += '/';
      path += Name(*it);
    }
    return path;
  }
  size_t Depth(size_t node) const {
    size_t d = 0;
    for (size_t j = node; parent_[j] != kNoParent; j = parent_[j]) ++d;
    return d;
  }

 private:
  std::string_view Name(size_t node) const {
    if (node >= before_.size()) return after_.name(static_cast<uint32_t>(node - before_.size()));
    if (name_from_after_[node]) return after_.name(renamed_to_.at(static_cast<uint32_t>(node)));
    return before_.name(static_cast<uint32_t>(node));
  }
  const Snapshot& before_;
  const Snapshot& after_;
  std::vector<uint32_t> parent_;
  std::vector<bool> name_from_after_;
  std::unordered_map<uint32_t, uint32_t> renamed_to_;
};

uint32_t DirFlag(const Object& o) { return S_ISDIR(o.mode) ? kind::kIsDir : 0; }

// Whether the object at `path` was born after `ns` (wall clock), where the file system keeps
// birth times (statx STX_BTIME); false when it cannot tell.
bool BornAfter(const std::string& path, int64_t ns) {
  struct statx st;
  if (statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_BTIME, &st) != 0 ||
      (st.stx_mask & STATX_BTIME) == 0) {
    return false;
  }
  return st.stx_btime.tv_sec * 1'000'000'000LL + st.stx_btime.tv_nsec > ns;
}

}  // namespace

void DiffSnapshots(const Snapshot& before, const Snapshot& after, int64_t ts_ns, uint32_t& cookie,
                   std::vector<Event>& out) {
  const uint32_t n_old = static_cast<uint32_t>(before.size());
  const uint32_t n_new = static_cast<uint32_t>(after.size());
  // Match every new object with an old one (parents first: they precede their children).
  std::vector<uint32_t> old_of(n_new, kNoParent), new_of(n_old, kNoParent);
  for (uint32_t i = 0; i < n_new; ++i) {
    const Object& o = after.at(i);
    const uint32_t parent_old = o.parent == kNoParent ? kNoParent : old_of[o.parent];
    const uint32_t j = before.Match(o, after.name(i), parent_old);
    if (j == kNoParent || new_of[j] != kNoParent ||
        (o.parent == kNoParent) != (before.at(j).parent == kNoParent) ||
        (o.mode & S_IFMT) != (before.at(j).mode & S_IFMT)) {
      continue;
    }
    // Seen elsewhere under the same identity: a rename, unless the inode number was freed and
    // handed to an object born after the previous pass, which could not have seen it.
    const bool moved = before.at(j).parent != parent_old || before.name(j) != after.name(i);
    if (moved && before.ended_ns() > 0 && BornAfter(after.Path(i), before.ended_ns())) continue;
    old_of[i] = j;
    new_of[j] = i;
  }
  auto emit = [&](uint32_t mask, uint32_t ck, std::string root, std::string path) {
    Event e;
    e.ts_ns = ts_ns;
    e.mask = mask;
    e.cookie = ck;
    e.root = std::move(root);
    e.path = std::move(path);
    e.source = "poll";
    out.push_back(std::move(e));
  };
  View view(before, after);
  // The view node standing for new object i: its old self, or itself once created.
  auto node_of = [&](uint32_t i) -> size_t {
    return old_of[i] != kNoParent ? old_of[i] : size_t{n_old} + i;
  };
  std::vector<bool> created(n_new, false);
  auto create = [&](uint32_t i) {
    created[i] = true;
    view.Place(node_of(i), node_of(after.at(i).parent));
    emit(kind::kCreate | DirFlag(after.at(i)), 0, std::string(after.RootOf(i)), after.Path(i));
  };
  // (new parent, name) of the renames, and of the directories created for them to land in:
  // an old object gone from such a name was replaced there, and is not deleted after them
  // (its DELETE would hit what now holds its name).
  std::set<std::pair<uint32_t, std::string_view>> moved_onto;
  // A new object's not-yet-created ancestors, outermost first.
  auto create_ancestors = [&](uint32_t i) {
    std::vector<uint32_t> missing;
    for (uint32_t p = after.at(i).parent; p != kNoParent && old_of[p] == kNoParent && !created[p];
         p = after.at(p).parent) {
      missing.push_back(p);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      moved_onto.emplace(after.at(*it).parent, after.name(*it));
      create(*it);
    }
  };

  // Renames, shallowest new place first.
  std::vector<uint32_t> moved;
  for (uint32_t i = 0; i < n_new; ++i) {
    const Object& o = after.at(i);
    const uint32_t j = old_of[i];
    if (j == kNoParent || o.parent == kNoParent) continue;
    const uint32_t old_parent_now = new_of[before.at(j).parent];
    if (old_parent_now != o.parent || before.name(j) != after.name(i)) moved.push_back(i);
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [&](uint32_t a, uint32_t b) { return after.Depth(a) < after.Depth(b); });
  std::vector<bool> is_moved(n_new, false);
  for (uint32_t i : moved) {
    is_moved[i] = true;
    moved_onto.emplace(after.at(i).parent, after.name(i));
    create_ancestors(i);
    const uint32_t j = old_of[i];
    const std::string from = view.Path(j);
    view.Rename(j, node_of(after.at(i).parent), i);
    if (++cookie == 0) ++cookie;
    const uint32_t flag = DirFlag(after.at(i));
    emit(kind::kMovedFrom | flag, cookie, std::string(before.RootOf(j)), from);
    emit(kind::kMovedTo | flag, cookie, std::string(after.RootOf(i)), view.Path(j));
  }

  // Deletions, deepest first, but not of a name a rename (or a directory made for one) took over.
  std::vector<uint32_t> gone;
  for (uint32_t j = 0; j < n_old; ++j) {
    if (new_of[j] == kNoParent) gone.push_back(j);
  }
  std::vector<size_t> depth(n_old, 0);
  for (uint32_t j : gone) depth[j] = view.Depth(j);
  std::stable_sort(gone.begin(), gone.end(),
                   [&](uint32_t a, uint32_t b) { return depth[a] > depth[b]; });
  for (uint32_t j : gone) {
    const uint32_t parent = before.at(j).parent;
    if (parent != kNoParent && moved_onto.contains({new_of[parent], before.name(j)})) continue;
    emit(kind::kDelete | DirFlag(before.at(j)), 0, std::string(before.RootOf(j)), view.Path(j));
  }

  // Creations, parents first.
  for (uint32_t i = 0; i < n_new; ++i) {
    if (old_of[i] == kNoParent && !created[i] && after.at(i).parent != kNoParent) create(i);
  }

  // Changes of data and attributes.
  for (uint32_t i = 0; i < n_new; ++i) {
    const uint32_t j = old_of[i];
    if (j == kNoParent) continue;
    const Object& a = before.at(j);
    const Object& b = after.at(i);
    const bool dir = S_ISDIR(b.mode);
    const bool modified = !dir && (a.size != b.size || a.mtime_ns != b.mtime_ns);
    const bool attrib = a.mode != b.mode || a.uid != b.uid || a.gid != b.gid ||
                        (!modified && !is_moved[i] && a.mtime_ns == b.mtime_ns &&
                         (a.ctime_ns != b.ctime_ns || a.nlink != b.nlink) && !dir);
    if (!modified && !attrib) continue;
    const std::string path = after.Path(i);
    const std::string root(after.RootOf(i));
    if (modified) emit(kind::kModify, 0, root, path);
    if (attrib) emit(kind::kAttrib | DirFlag(b), 0, root, path);
  }
}

}  // namespace fathom::poll_internal
