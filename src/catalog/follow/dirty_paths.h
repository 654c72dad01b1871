// dirty_paths.h — the paths whose attributes must be read again before a batch of events is
// committed, kept so that each is read once however many events named it (an entry changed
// a thousand times in a batch is stat'ed once), and kept true while the batch renames and
// removes directories: a path below a renamed directory follows it, one below a removed
// directory is dropped. A path may carry another path that reaches its object whatever its
// name (Lustre: MOUNT/.lustre/fid/[FID]), kept with it as it moves.
//
// A plain value type, used from one thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::catalog {

// A noted path and the path of its object ("" when none was given).
struct DirtyPath {
  std::string path;
  std::string object;
};

class DirtyPaths {
 public:
  // Notes `path` (absolute), keeping the order in which paths were first noted; `object`,
  // when given, replaces the one noted with it.
  void Add(std::string_view path, std::string_view object = {});
  // `from` and everything below it now live under `to`.
  void Move(std::string_view from, std::string_view to);
  // Drops `path` and everything below it.
  void Remove(std::string_view path);
  // The noted paths, in byte order.
  std::vector<std::string> Paths() const;
  // The same with their objects.
  std::vector<DirtyPath> Entries() const;
  // The noted paths, parents before what lies below them, then in the order first noted;
  // leaves the set empty.
  std::vector<std::string> Take();
  // Take() with the objects.
  std::vector<DirtyPath> TakeEntries();
  size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }

 private:
  struct Noted {
    uint64_t order = 0;  // when it was first noted
    std::string object;
  };
  std::map<std::string, Noted, std::less<>> order_;
  uint64_t next_ = 0;
};

}  // namespace fathom::catalog
