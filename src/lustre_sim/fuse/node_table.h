// node_table.h — the FUSE inodes the kernel currently knows, and their FIDs.
//
// Each node is one object of the backing directory, held open with an O_PATH descriptor
// (so renames and unlinks elsewhere never invalidate it), with its FID and the lookup count
// the kernel holds. Nodes are found by FUSE node id or by the backing object's (dev, ino):
// every hard link of an object is one node. Node id 1 is the root and is never forgotten.
// Nodes are shared_ptr so a request may keep using one while another thread forgets it.
// Thread-safe (one internal mutex).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/unique_fd.h"
#include "lustre/fid.h"

namespace fathom::lustre_sim {

struct Node {
  uint64_t id = 0;
  lustre::Fid fid;
  UniqueFd fd;            // O_PATH | O_NOFOLLOW on the backing object
  dev_t dev = 0;
  ino_t ino = 0;
  mode_t type = 0;        // S_IFMT bits
  uint64_t nlookup = 0;   // guarded by the table's mutex
};

class NodeTable {
 public:
  // Installs the root (node id 1).
  void SetRoot(std::shared_ptr<Node> root);
  std::shared_ptr<Node> Find(uint64_t id);
  // The node of backing object (dev, ino) if the kernel knows it; adds one lookup.
  std::shared_ptr<Node> AcquireExisting(dev_t dev, ino_t ino);
  // Adds a node made by the caller (fd, fid, dev, ino, type set) with one lookup, unless
  // another thread added the same backing object first: then that one gets the lookup.
  std::shared_ptr<Node> Insert(std::unique_ptr<Node> node);
  // Adds a node of its own for an object the kernel may know under another node too (a
  // directory reached through MOUNT/.lustre/fid/, which must not alias its own dentry):
  // found by id only, never by its backing object.
  std::shared_ptr<Node> InsertAlias(std::unique_ptr<Node> node);
  void Forget(uint64_t id, uint64_t nlookup);
  size_t size();

 private:
  std::mutex mu_;
  uint64_t next_id_ = 2;                                              // guarded by mu_
  std::unordered_map<uint64_t, std::shared_ptr<Node>> by_id_;         // guarded by mu_
  std::map<std::pair<dev_t, ino_t>, uint64_t> by_object_;             // guarded by mu_
};

}  // namespace fathom::lustre_sim
