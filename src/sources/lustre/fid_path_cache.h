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
//
// A directory's path, once built, is noted in its entry (NoteResolved) and given back by
// ResolvedPath until any directory's entry changes (renamed, removed, evicted, rewritten):
// records name a few hot directories over and over, and walking their parents for each one
// was most of the resolving. Every entry a noted path was built through is a directory (it
// was reached as some object's parent, FindParent), so watching directories' entries is
// enough to know when a noted path may be stale.
// Not thread-safe: used by the one thread that resolves records.
#pragma once

#include <cstddef>
#include <cstdint>
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
    std::string path;    // absolute entry: the path from the root; relative: as last noted
    uint64_t noted = 0;  // relative entry: the directory generation `path` was noted in
    bool absolute = false;
    bool is_dir = false;  // known to be a directory
    bool linked = false;  // known to have several links (a hard link to it was made)
  };

  explicit FidPathCache(size_t capacity);

  // The entry for `fid`, most recently used from now on; nullptr on a miss. Valid until the
  // next non-const call.
  const Entry* Find(const lustre::Fid& fid);
  // Find(), for a FID reached as some object's parent: its entry is a directory from now on.
  const Entry* FindParent(const lustre::Fid& fid);
  // The path noted for the directory of entry `e`, while still true; nullptr otherwise.
  const std::string* ResolvedPath(const Entry& e) const {
    return !e.absolute && e.noted == generation_ ? &e.path : nullptr;
  }
  // The directory `fid` is at `path` now; no effect when it is not cached or is absolute.
  void NoteResolved(const lustre::Fid& fid, const std::string& path);
  // `fid` is `name` inside `parent`.
  void Learn(const lustre::Fid& fid, const lustre::Fid& parent, std::string name, bool is_dir);
  // `fid` is at `path` (from fid2path).
  void StoreAbsolute(const lustre::Fid& fid, std::string path);
  // `fid` is a directory (it is some record's parent); no effect when it is not cached.
  void NoteDirectory(const lustre::Fid& fid);
  // Whether `fid` is known to be a directory.
  bool IsDirectory(const lustre::Fid& fid) const;
  // `fid` got another link; no effect when it is not cached.
  void NoteLinked(const lustre::Fid& fid);
  // Whether `fid` is cached and known to have several links.
  bool IsLinked(const lustre::Fid& fid) const;
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

  // The entry for `fid`, most recently used from now on; nullptr on a miss.
  Entry* Touch(const lustre::Fid& fid);
  void Put(const lustre::Fid& fid, Entry entry);
  void Erase(List::iterator it);
  // A directory's entry changed or went: every noted path may be stale.
  void DirectoryChanged() { ++generation_; }
  void DropAbsoluteUnder(const std::string& path);
  void MoveAbsoluteUnder(const std::string& from, const std::string& to);

  size_t capacity_;
  List lru_;  // front: most recently used
  std::unordered_map<lustre::Fid, List::iterator, lustre::FidHash> index_;
  std::map<std::string, lustre::Fid> by_path_;  // absolute entries, by path
  Entry root_;
  uint64_t generation_ = 1;
};

}  // namespace fathom::lustre_source
