// watch_tree.h — the inotify source's model of the watched directories.
//
// One DirNode per inotify watch descriptor, linked into a tree (parent node, name in the
// parent, children through the parent's entries). Every node also keeps the names of its
// directory's entries as last known (and whether each is a directory), which the source uses
// to drop duplicate CREATEs after a scan and to reconcile after a queue overflow.
//
// Paths are never stored per event: an event's path is the cached path of its directory node
// plus the entry name. A directory rename re-parents one node in O(1) and bumps a generation
// counter that lazily invalidates every cached path, so events inside a renamed directory
// resolve to the new paths without touching the subtree.
//
// The tree owns its nodes (std::unique_ptr in the wd map); DirNode* and DirEntry::child are
// non-owning and valid until the node is removed. Not thread-safe: one thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom::inotify_internal {

struct DirNode;

struct DirEntry {
  DirNode* child = nullptr;  // the watched subdirectory, if this entry is one
  bool is_dir = false;
  bool scan_pending = false;  // reported by a scan; a queued IN_CREATE for it is a duplicate
  bool watch_failed = false;  // a directory that could not be watched (limit, permission)
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using EntryMap = std::unordered_map<std::string, DirEntry, StringHash, std::equal_to<>>;

struct DirNode {
  int wd = -1;
  DirNode* parent = nullptr;  // nullptr for a root node
  std::string name;           // name in the parent; unused for a root node
  int root = -1;              // index of the root this node is, or -1
  EntryMap entries;
  // Path cache, valid while path_gen equals the tree's generation (always valid for a root).
  std::string path;
  int root_of = -1;
  uint64_t path_gen = 0;
  // Offset in the inotify stream up to which queued events about this directory may predate
  // its last listing or the last watch placed on one of its subdirectories (see
  // InotifySource::OpenWindow), and whether it waits for a verifying listing.
  uint64_t window_end = 0;
  bool dirty = false;
};

class WatchTree {
 public:
  explicit WatchTree(std::vector<std::string> roots) : roots_(std::move(roots)) {}

  const std::vector<std::string>& roots() const { return roots_; }
  size_t size() const { return nodes_.size(); }

  DirNode* Find(int wd) const {
    auto it = nodes_.find(wd);
    return it == nodes_.end() ? nullptr : it->second.get();
  }
  // The node of root `root_index`, watched as `wd`.
  DirNode* AddRoot(int wd, int root_index);
  // A node for `wd` as the subdirectory `name` of `parent` (the entry is created or updated;
  // it must not hold another node: remove that one first).
  DirNode* AddChild(DirNode* parent, std::string_view name, int wd);
  // Re-parents `node` as `name` in `new_parent`; detaches it from its old parent's entry. The
  // target entry must not hold another node.
  void Move(DirNode* node, DirNode* new_parent, std::string_view name);
  // The node is now watched under another descriptor (its directory was replaced).
  void Rekey(DirNode* node, int new_wd);
  // Forgets `node` and every node below it, detaching it from its parent's entry; calls
  // `on_removed(wd)` for each removed node.
  void RemoveSubtree(DirNode* node, const std::function<void(int)>& on_removed);
  // Whether `node` is `ancestor` or lies below it. (Moving `ancestor` under such a node would
  // make a cycle: the tree can hold that a directory is inside one that is really inside it
  // by now, until the events or listings that say otherwise are applied.)
  static bool IsWithin(const DirNode* node, const DirNode* ancestor) {
    for (const DirNode* p = node; p != nullptr; p = p->parent) {
      if (p == ancestor) return true;
    }
    return false;
  }
  // Every root node (roots whose watch is gone are absent).
  std::vector<DirNode*> RootNodes() const;

  // Absolute path of the node's directory.
  const std::string& DirPath(DirNode* node);
  // Index of the root the node lies under.
  int RootOf(DirNode* node) {
    DirPath(node);
    return node->root_of;
  }
  // Appends DirPath(dir) + "/" + name to `out` ("" name: the directory itself).
  void AppendPath(DirNode* dir, std::string_view name, std::string& out);
  std::string ChildPath(DirNode* dir, std::string_view name) {
    std::string out;
    AppendPath(dir, name, out);
    return out;
  }

 private:
  std::vector<std::string> roots_;
  std::unordered_map<int, std::unique_ptr<DirNode>> nodes_;
  uint64_t gen_ = 1;
  std::vector<DirNode*> chain_;  // scratch for DirPath
};

}  // namespace fathom::inotify_internal
