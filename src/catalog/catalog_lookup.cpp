#include "catalog/catalog_lookup.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "catalog/catalog_path.h"

namespace fathom::catalog {

Result<Located> LocatePath(CatalogBackend& backend, std::string_view path) {
  FATHOM_RETURN_IF_ERROR(CheckPath(path));
  FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> roots, backend.ChildNames(0));
  const NameRow* best = nullptr;
  for (const NameRow& root : roots) {
    if (PathIsUnder(path, root.name) && (best == nullptr || root.name.size() > best->name.size())) {
      best = &root;
    }
  }
  Located at;
  if (best == nullptr) return at;
  at.name = best->name;
  at.id = best->id;
  for (std::string_view name : NamesBelow(path, best->name)) {
    if (at.id == 0) return Located{};
    at.parent = at.id;
    at.name = std::string(name);
    FATHOM_ASSIGN_OR_RETURN(at.id, backend.NameTarget(at.parent, name));
  }
  return at;
}

Result<std::string> NamePath(CatalogBackend& backend, EntryId parent, std::string_view name) {
  if (parent == 0) return std::string(name);
  FATHOM_ASSIGN_OR_RETURN(std::string dir, DirectoryPath(backend, parent));
  return JoinPath(dir, name);
}

Result<std::string> DirectoryPath(CatalogBackend& backend, EntryId dir) {
  std::vector<std::string> names;
  for (EntryId id = dir;;) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> rows, backend.NamesOf(id));
    if (rows.empty()) {
      return Status::Error("catalog " + backend.location() + ": directory entry " +
                           std::to_string(id) + " has no name: run a recount or a new scan");
    }
    names.push_back(std::move(rows.front().name));
    if (rows.front().parent == 0) break;
    id = rows.front().parent;
    if (names.size() > 4096) {
      return Status::Error("catalog " + backend.location() + ": the names above entry " +
                           std::to_string(dir) + " form a loop: the catalog is damaged");
    }
  }
  std::string path = names.back();
  for (size_t i = names.size() - 1; i-- > 0;) path = JoinPath(path, names[i]);
  return path;
}

Status DirectoryPaths::Resolve(std::vector<EntryId> dirs) {
  // Level by level upward: the names of the directories not yet known, then of their parents.
  std::unordered_map<EntryId, NameRow> read;  // directory -> its (first) name
  std::vector<EntryId> want = std::move(dirs);
  for (size_t level = 0;; ++level) {
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    std::erase_if(want, [&](EntryId id) { return id == 0 || known_.count(id) != 0 || read.count(id) != 0; });
    if (want.empty()) break;
    if (level > 4096) {
      return Status::Error("catalog " + backend_.location() + ": the names above entry " +
                           std::to_string(want.front()) + " form a loop: the catalog is damaged");
    }
    FATHOM_RETURN_IF_ERROR(backend_.DirectoryNamesOfMany(want, [&](const NameRow& row) {
      auto [it, added] = read.try_emplace(row.id, row);
      if (!added && std::tie(row.parent, row.name) < std::tie(it->second.parent, it->second.name)) it->second = row;
    }));
    std::vector<EntryId> parents;
    for (EntryId id : want) {
      auto it = read.find(id);
      if (it == read.end()) {
        return Status::Error("catalog " + backend_.location() + ": directory entry " +
                             std::to_string(id) + " has no name: run a recount or a new scan");
      }
      parents.push_back(it->second.parent);
    }
    want = std::move(parents);
  }
  // Down from what is known (or a root) to each directory read.
  std::vector<EntryId> chain;
  for (const auto& [start, unused] : read) {
    const Dir* above = nullptr;
    for (EntryId id = start; above == nullptr && id != 0;) {
      if (auto it = known_.find(id); it != known_.end()) {
        above = &it->second;
        break;
      }
      chain.push_back(id);
      id = read.at(id).parent;
    }
    for (size_t i = chain.size(); i-- > 0;) {
      const NameRow& name = read.at(chain[i]);
      Dir d = above == nullptr ? Dir{name.name, 0} : Dir{JoinPath(above->path, name.name), above->depth + 1};
      above = &known_.emplace(chain[i], std::move(d)).first->second;
    }
    chain.clear();
  }
  return Status::Ok();
}

const DirectoryPaths::Dir* DirectoryPaths::Find(EntryId dir) const {
  auto it = known_.find(dir);
  return it == known_.end() ? nullptr : &it->second;
}

}  // namespace fathom::catalog
