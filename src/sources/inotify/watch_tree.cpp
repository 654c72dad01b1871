#include "sources/inotify/watch_tree.h"

namespace fathom::inotify_internal {

DirNode* WatchTree::AddRoot(int wd, int root_index) {
  auto node = std::make_unique<DirNode>();
  node->wd = wd;
  node->root = root_index;
  node->root_of = root_index;
  node->path = roots_[root_index];
  DirNode* raw = node.get();
  nodes_[wd] = std::move(node);
  return raw;
}

DirNode* WatchTree::AddChild(DirNode* parent, std::string_view name, int wd) {
  auto node = std::make_unique<DirNode>();
  node->wd = wd;
  node->parent = parent;
  node->name = name;
  DirNode* raw = node.get();
  nodes_[wd] = std::move(node);
  auto [it, inserted] = parent->entries.try_emplace(std::string(name));
  it->second.child = raw;
  it->second.is_dir = true;
  return raw;
}

void WatchTree::Move(DirNode* node, DirNode* new_parent, std::string_view name) {
  if (node->parent != nullptr) {
    auto it = node->parent->entries.find(node->name);
    if (it != node->parent->entries.end() && it->second.child == node) it->second.child = nullptr;
  }
  node->parent = new_parent;
  node->name = name;
  auto [it, inserted] = new_parent->entries.try_emplace(std::string(name));
  it->second.child = node;
  it->second.is_dir = true;
  ++gen_;
}

void WatchTree::Rekey(DirNode* node, int new_wd) {
  auto handle = nodes_.extract(node->wd);
  node->wd = new_wd;
  handle.key() = new_wd;
  nodes_.insert(std::move(handle));
}

void WatchTree::RemoveSubtree(DirNode* node, const std::function<void(int)>& on_removed) {
  if (node->parent != nullptr) {
    auto it = node->parent->entries.find(node->name);
    if (it != node->parent->entries.end() && it->second.child == node) it->second.child = nullptr;
  }
  std::vector<DirNode*> stack{node};
  std::vector<int> wds;
  while (!stack.empty()) {
    DirNode* n = stack.back();
    stack.pop_back();
    wds.push_back(n->wd);
    for (auto& [name, entry] : n->entries) {
      if (entry.child != nullptr) stack.push_back(entry.child);
    }
  }
  for (int wd : wds) {
    nodes_.erase(wd);
    on_removed(wd);
  }
}

std::vector<DirNode*> WatchTree::RootNodes() const {
  std::vector<DirNode*> out;
  for (const auto& [wd, node] : nodes_) {
    if (node->root >= 0) out.push_back(node.get());
  }
  return out;
}

const std::string& WatchTree::DirPath(DirNode* node) {
  chain_.clear();
  DirNode* p = node;
  while (p->root < 0 && p->path_gen != gen_) {
    chain_.push_back(p);
    p = p->parent;
  }
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
    DirNode* n = *it;
    const std::string& base = n->parent->path;
    n->path.clear();
    n->path.reserve(base.size() + 1 + n->name.size());
    n->path.append(base);
    if (base != "/") n->path.push_back('/');
    n->path.append(n->name);
    n->root_of = n->parent->root_of;
    n->path_gen = gen_;
  }
  return node->path;
}

void WatchTree::AppendPath(DirNode* dir, std::string_view name, std::string& out) {
  const std::string& base = DirPath(dir);
  if (name.empty()) {
    out.append(base);
    return;
  }
  out.reserve(out.size() + base.size() + 1 + name.size());
  out.append(base);
  if (base != "/") out.push_back('/');
  out.append(name);
}

}  // namespace fathom::inotify_internal
