#include "lustre_sim/fuse/node_table.h"

namespace fathom::lustre_sim {

void NodeTable::SetRoot(std::shared_ptr<Node> root) {
  std::lock_guard lock(mu_);
  root->id = 1;
  root->nlookup = 1;
  by_object_[{root->dev, root->ino}] = 1;
  by_id_[1] = std::move(root);
}

std::shared_ptr<Node> NodeTable::Find(uint64_t id) {
  std::lock_guard lock(mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::shared_ptr<Node> NodeTable::AcquireExisting(dev_t dev, ino_t ino) {
  std::lock_guard lock(mu_);
  auto it = by_object_.find({dev, ino});
  if (it == by_object_.end()) return nullptr;
  auto& node = by_id_.at(it->second);
  ++node->nlookup;
  return node;
}

std::shared_ptr<Node> NodeTable::Insert(std::unique_ptr<Node> node) {
  std::lock_guard lock(mu_);
  auto it = by_object_.find({node->dev, node->ino});
  if (it != by_object_.end()) {
    auto& existing = by_id_.at(it->second);
    ++existing->nlookup;
    return existing;
  }
  node->id = next_id_++;
  node->nlookup = 1;
  std::shared_ptr<Node> shared(std::move(node));
  by_object_[{shared->dev, shared->ino}] = shared->id;
  by_id_[shared->id] = shared;
  return shared;
}

std::shared_ptr<Node> NodeTable::InsertAlias(std::unique_ptr<Node> node) {
  std::lock_guard lock(mu_);
  node->id = next_id_++;
  node->nlookup = 1;
  std::shared_ptr<Node> shared(std::move(node));
  by_id_[shared->id] = shared;
  return shared;
}

void NodeTable::Forget(uint64_t id, uint64_t nlookup) {
  std::lock_guard lock(mu_);
  if (id == 1) return;
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  auto& node = it->second;
  node->nlookup = nlookup >= node->nlookup ? 0 : node->nlookup - nlookup;
  if (node->nlookup > 0) return;
  auto obj = by_object_.find({node->dev, node->ino});
  if (obj != by_object_.end() && obj->second == id) by_object_.erase(obj);
  by_id_.erase(it);
}

size_t NodeTable::size() {
  std::lock_guard lock(mu_);
  return by_id_.size();
}

}  // namespace fathom::lustre_sim
