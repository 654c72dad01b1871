#include "catalog/catalog_lookup.h"

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

Result<const DirectoryPaths::Dir*> DirectoryPaths::Get(EntryId dir) {
  if (auto it = known_.find(dir); it != known_.end()) return &it->second;
  // Up to the nearest directory already known (or a root), then down, remembering each.
  std::vector<std::pair<EntryId, NameRow>> chain;
  const Dir* above = nullptr;
  for (EntryId id = dir; above == nullptr;) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> rows, backend_.NamesOf(id));
    if (rows.empty()) {
      return Status::Error("catalog " + backend_.location() + ": directory entry " +
                           std::to_string(id) + " has no name: run a recount or a new scan");
    }
    const EntryId parent = rows.front().parent;
    chain.emplace_back(id, std::move(rows.front()));
    if (parent == 0) break;
    if (auto it = known_.find(parent); it != known_.end()) above = &it->second;
    id = parent;
    if (chain.size() > 4096) {
      return Status::Error("catalog " + backend_.location() + ": the names above entry " +
                           std::to_string(dir) + " form a loop: the catalog is damaged");
    }
  }
  for (size_t i = chain.size(); i-- > 0;) {
    const auto& [id, name] = chain[i];
    Dir d = above == nullptr ? Dir{name.name, 0} : Dir{JoinPath(above->path, name.name), above->depth + 1};
    above = &known_.emplace(id, std::move(d)).first->second;
  }
  return above;
}

}  // namespace fathom::catalog
