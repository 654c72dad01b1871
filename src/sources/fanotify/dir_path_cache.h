// dir_path_cache.h — bounded LRU map from directory handles to where the directory is.
//
// An entry says either "directory `name` inside the directory with handle `parent`" (learned
// from the event stream: a CREATE or rename of a directory carries both handles and the name)
// or "at absolute path P" (looked up with open_by_handle_at for directories that existed
// before fathom started). Relative entries make a directory rename cost one entry update:
// descendants follow when the path is built by walking up. Absolute entries below a renamed
// or removed directory are rewritten or dropped through an index ordered by path. Pinned
// entries (the watched roots) are never evicted and do not count against the capacity.
// Not thread-safe: used by the one thread that drains the source.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "sources/fanotify/handle_key.h"

namespace fathom::fanotify_internal {

class DirPathCache {
 public:
  struct Entry {
    HandleKey parent;  // relative entry: the parent directory's handle
    std::string name;  // relative entry: the name inside the parent
    std::string path;  // absolute entry: the path
    bool absolute = false;
  };

  explicit DirPathCache(size_t capacity);
  // Not copyable: last_pinned_ points into pinned_ (a move carries the nodes along).
  DirPathCache(const DirPathCache&) = delete;
  DirPathCache& operator=(const DirPathCache&) = delete;
  DirPathCache(DirPathCache&&) = default;
  DirPathCache& operator=(DirPathCache&&) = default;

  // The entry for `key`, most-recently-used from now on; nullptr on a miss. The pointer is
  // valid until the next non-const call.
  const Entry* Find(const HandleKey& key);
  void Pin(const HandleKey& key, std::string path);
  // `key` is the directory `name` inside `parent`.
  void Learn(const HandleKey& key, const HandleKey& parent, std::string name);
  void StoreAbsolute(const HandleKey& key, std::string path);
  // The directory `key` was renamed from `old_path` to `name` inside `parent`, whose path is
  // `new_path` now. Absolute entries at or below old_path move below new_path. Either path
  // may be empty when unknown; then absolute entries below it are dropped instead.
  void Moved(const HandleKey& key, const HandleKey& parent, std::string name,
             const std::string& old_path, const std::string& new_path);
  // The directory `key` (at `path`, if known) was removed or left the file system's view.
  void Forget(const HandleKey& key, const std::string& path);
  // Drops everything but pinned entries (after lost events).
  void Clear();

  size_t size() const { return lru_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  struct Node {
    HandleKey key;
    Entry entry;
  };
  using List = std::list<Node>;

  void Put(const HandleKey& key, Entry entry);
  void Erase(List::iterator it);
  void DropAbsoluteUnder(const std::string& path);

  size_t capacity_;
  List lru_;  // front: most recently used
  std::unordered_map<HandleKey, List::iterator> index_;
  std::map<std::string, HandleKey> by_path_;  // absolute entries in lru_, by path
  std::unordered_map<HandleKey, Entry> pinned_;
  // The pinned entry Find() returned last (most events are in one watched directory); its
  // node stays put while pinned_ only grows.
  const std::pair<const HandleKey, Entry>* last_pinned_ = nullptr;
};

}  // namespace fathom::fanotify_internal
