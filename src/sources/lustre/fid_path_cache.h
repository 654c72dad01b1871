// fid_path_cache.h — bounded LRU map from Lustre FIDs to where the object is.
//
// Paths here are relative to the file system root: "" is the root, "a/b" a descendant.
// An entry says either "name `name` inside the directory `parent`" (learned from the
// changelog itself: a CREAT/MKDIR/HLINK/RENME record carries the object's FID, its parent's
// FID and its name) or "at path P" (an answer of fid2path). Relative entries make a
// directory rename cost one entry update: descendants follow when a path is built by
// walking up the parents. Absolute entries at or below a renamed directory are rewritten
// through an index ordered by path, and dropped when the directory is removed. The root FID
// is always known and does not count against the capacity. Capacity 0 keeps nothing.
// Not thread-safe: used by the one thread that resolves records.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>
#include <unordered_map>

#include "lustre/fid.h"

namespace fathom::lustre_source {

class FidPathCache {
 public:
  struct Entry {
    lustre::Fid parent;  // relative entry: the parent directory
    std::string name;    // relative entry: the name inside the parent
    std::string path;    // absolute entry: the path from the root
    bool absolute = false;
    bool is_dir = false;  // known to be a directory
  };

  explicit FidPathCache(size_t capacity);

  // The entry for `fid`, most recently used from now on; nullptr on a miss. Valid until the
  // next non-const call.
  const Entry* Find(const lustre::Fid& fid);
  // `fid` is `name` inside `parent`.
  void Learn(const lustre::Fid& fid, const lustre::Fid& parent, std::string name, bool is_dir);
  // `fid` is at `path` (from fid2path).
  void StoreAbsolute(const lustre::Fid& fid, std::string path);
  // `fid` is a directory (it is some record's parent); no effect when it is not cached.
  void NoteDirectory(const lustre::Fid& fid);
  // Whether `fid` is known to be a directory.
  bool IsDirectory(const lustre::Fid& fid) const;
  // `fid` was renamed from `old_path` to `name` inside `parent` (now at `new_path`).
  // Absolute entries below old_path move below new_path. Either path may be empty when
  // unknown (the root itself is never renamed); then absolute entries below old_path are
  // dropped, or nothing can be rewritten when old_path is unknown.
  void Moved(const lustre::Fid& fid, const lustre::Fid& parent, std::string name,
             const std::string* old_path, const std::string* new_path);
  // `fid` (at `path`, when known) is gone: its entry and absolute entries below it go.
  void Forget(const lustre::Fid& fid, const std::string* path);

  size_t size() const { return lru_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  struct Node {
    lustre::Fid fid;
    Entry entry;
  };
  using List = std::list<Node>;

  void Put(const lustre::Fid& fid, Entry entry);
  void Erase(List::iterator it);
  void DropAbsoluteUnder(const std::string& path);
  void MoveAbsoluteUnder(const std::string& from, const std::string& to);

  size_t capacity_;
  List lru_;  // front: most recently used
  std::unordered_map<lustre::Fid, List::iterator, lustre::FidHash> index_;
  std::map<std::string, lustre::Fid> by_path_;  // absolute entries, by path
  Entry root_;
};

}  // namespace fathom::lustre_source
