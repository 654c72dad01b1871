// catalog_lookup.h — paths to entries and back through the names table: the root a path lies
// under, the name a path ends in, a directory's path. Backend-neutral; the caller's thread.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "catalog/catalog_backend.h"

namespace fathom::catalog {

// Where a path leads: the directory holding its last name (0 for a root), that name, and the
// entry (0 when the catalog has no such name; parent is then 0 too unless only the last
// name is missing).
struct Located {
  EntryId parent = 0;
  std::string name;
  EntryId id = 0;
};

// Checks `path` (CheckPath) and follows it from the longest root it lies under.
Result<Located> LocatePath(CatalogBackend& backend, std::string_view path);

// The path of the name (parent, name): a root's name when parent is 0.
Result<std::string> NamePath(CatalogBackend& backend, EntryId parent, std::string_view name);

// The path of a directory entry (through its one name); an error when it has none.
Result<std::string> DirectoryPath(CatalogBackend& backend, EntryId dir);

// Directory paths and depths (below their root, a root being 0) remembered as they are
// built, so that the names above many entries are each read once, and read in batches: one
// NamesOfMany per level of the tree above the directories asked for. Valid while the catalog
// does not change; the caller's thread.
class DirectoryPaths {
 public:
  struct Dir {
    std::string path;
    int depth = 0;
  };
  explicit DirectoryPaths(CatalogBackend& backend) : backend_(backend) {}
  // Makes every directory of `dirs` (ids, in any order, repeats allowed; 0 is skipped) known;
  // an error when one of them, or a directory above one, has no name.
  Status Resolve(std::vector<EntryId> dirs);
  // A directory made known by Resolve; nullptr otherwise.
  const Dir* Find(EntryId dir) const;
  size_t size() const { return known_.size(); }  // directories known

 private:
  CatalogBackend& backend_;
  std::unordered_map<EntryId, Dir> known_;
};

}  // namespace fathom::catalog
