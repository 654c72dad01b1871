#include "catalog/catalog_batch.h"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "catalog/catalog_lookup.h"
#include "catalog/catalog_path.h"
#include "catalog/freshness.h"

namespace fathom::catalog {
namespace {

bool IsDir(const Attrs& attrs) { return S_ISDIR(attrs.mode); }

Status CheckName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos) {
    return Status::Error("catalog name '" + std::string(name) +
                         "' is not a directory entry's name: give one component, without '/'");
  }
  return Status::Ok();
}

class CatalogBatch final : public Batch {
 public:
  CatalogBatch(CatalogBackend& backend, std::chrono::seconds retention, EntryId last_id)
      : b_(backend), retention_(retention), last_id_(last_id), stored_last_id_(last_id) {}
  ~CatalogBatch() override {
    if (open_) b_.RollbackWrite();
  }

  Result<EntryId> Lookup(std::string_view path) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    FATHOM_ASSIGN_OR_RETURN(Located at, LocatePath(b_, path));
    return at.id;
  }

  Result<std::vector<std::string>> PathsOf(uint64_t dev, uint64_t ino) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    std::vector<std::string> paths;
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryByIdentity(dev, ino));
    if (!entry) return paths;
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_.NamesOf(entry->id));
    for (const NameRow& n : names) {
      FATHOM_ASSIGN_OR_RETURN(std::string path, NamePath(b_, n.parent, n.name));
      paths.push_back(std::move(path));
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  Result<EntryId> LookupDirectory(std::string_view path) override {
    FATHOM_ASSIGN_OR_RETURN(const EntryId id, Lookup(path));
    if (id == 0 || dir_parent_.contains(id)) return id;
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryById(id));
    return entry && IsDir(entry->attrs) ? id : EntryId{0};
  }

  Result<EntryId> PutRoot(std::string_view path, const Attrs& attrs,
                          const Observation& seen) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    FATHOM_RETURN_IF_ERROR(CheckPath(path));
    FATHOM_ASSIGN_OR_RETURN(Located at, LocatePath(b_, path));
    if (at.parent != 0) {
      return Status::Error("catalog " + b_.location() + ": " + std::string(path) +
                           " lies in a directory the catalog holds, so it is not a root: put it "
                           "there with Put");
    }
    return Track(PutName(0, path, attrs, seen));
  }

  Result<EntryId> Put(EntryId parent, std::string_view name, const Attrs& attrs,
                      const Observation& seen) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    if (parent == 0) {
      return Status::Error("catalog " + b_.location() + ": Put of '" + std::string(name) +
                           "' without a parent directory: use PutRoot for a root");
    }
    FATHOM_RETURN_IF_ERROR(CheckName(name));
    return Track(PutName(parent, name, attrs, seen));
  }

  Status Remove(EntryId parent, std::string_view name, const Removal& removal) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    return Track(RemovePublic(parent, name, removal));
  }

  Status Move(EntryId parent, std::string_view name, EntryId new_parent,
              std::string_view new_name, const Observation& seen,
              const Removal& replaced) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    if (new_parent != 0) FATHOM_RETURN_IF_ERROR(CheckName(new_name));
    return Track(MovePublic(parent, name, new_parent, new_name, seen, replaced));
  }

  Status Expect(std::span<const Identity> objects) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    return Track(b_.Expect(objects));
  }

  Status Commit(std::string_view stream, uint64_t last_applied,
                std::span<const std::string> pending) override {
    FATHOM_RETURN_IF_ERROR(Usable());
    Status status = WriteStatistics();
    if (status.ok() && last_id_ != stored_last_id_) status = b_.SetLastEntryId(last_id_);
    if (status.ok() && !stream.empty()) {
      std::string joined;
      for (const std::string& path : pending) {
        if (!joined.empty()) joined += '\0';
        joined += path;
      }
      status = b_.SetStreamPosition(stream, last_applied, joined);
    }
    if (status.ok()) status = b_.ExpireRemoved(NowNs() - std::chrono::nanoseconds(retention_).count());
    if (status.ok()) status = b_.CountCommit();
    if (status.ok()) status = b_.CommitWrite();
    open_ = false;
    if (!status.ok()) b_.RollbackWrite();
    return status;
  }

 private:
  Status Usable() const {
    if (!open_) {
      return Status::Error("catalog " + b_.location() +
                           ": this batch is already committed: begin a new one");
    }
    return failed_;
  }
  template <typename T>
  T Track(T result) {
    if constexpr (std::is_same_v<T, Status>) {
      if (!result.ok()) failed_ = result;
    } else {
      if (!result.ok()) failed_ = result.status();
    }
    return result;
  }

  // The directory holding `dir` (0 for a root), checking that `dir` is a directory entry.
  Result<EntryId> ParentOf(EntryId dir) {
    if (auto it = dir_parent_.find(dir); it != dir_parent_.end()) return it->second;
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryById(dir));
    if (!entry) {
      return Status::Error("catalog " + b_.location() + ": entry " + std::to_string(dir) +
                           " is not in the catalog: put its directory before what it holds");
    }
    if (!IsDir(entry->attrs)) {
      return Status::Error("catalog " + b_.location() + ": entry " + std::to_string(dir) +
                           " is not a directory, so it holds no names");
    }
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_.NamesOf(dir));
    if (names.empty()) {
      return Status::Error("catalog " + b_.location() + ": directory entry " + std::to_string(dir) +
                           " has no name: run a recount or a new scan");
    }
    dir_parent_[dir] = names.front().parent;
    return names.front().parent;
  }

  // Adds `delta` to the subtree totals of `dir` and of every directory above it. Deltas for
  // the same directory in a row (the names of one directory, as a scan puts them) are summed
  // and carried up once, before the totals are read or written.
  Status AddToChain(EntryId dir, const TotalsDelta& delta) {
    if (dir != chain_dir_) {
      FATHOM_RETURN_IF_ERROR(CarryChain());
      chain_dir_ = dir;
    }
    chain_delta_ += delta;
    return Status::Ok();
  }

  // Carries the delta summed by AddToChain() up its directory's chain.
  Status CarryChain() {
    EntryId dir = chain_dir_;
    const TotalsDelta delta = chain_delta_;
    chain_dir_ = 0;
    chain_delta_ = TotalsDelta{};
    for (int depth = 0; dir != 0; ++depth) {
      if (depth > 4096) {
        return Status::Error("catalog " + b_.location() + ": the directories above entry " +
                             std::to_string(dir) + " form a loop: the catalog is damaged");
      }
      stats_.tree[dir] += delta;
      FATHOM_ASSIGN_OR_RETURN(dir, ParentOf(dir));
    }
    return Status::Ok();
  }

  // Whether `ancestor` is `dir` or a directory above it.
  Result<bool> Holds(EntryId ancestor, EntryId dir) {
    for (int depth = 0; dir != 0 && depth <= 4096; ++depth) {
      if (dir == ancestor) return true;
      FATHOM_ASSIGN_OR_RETURN(dir, ParentOf(dir));
    }
    return false;
  }

  // What the name of `entry` adds to the directories above it: its subtree for a directory.
  Result<TotalsDelta> Weight(const EntryRow& entry) {
    if (!IsDir(entry.attrs)) return NameContribution(entry.attrs);
    FATHOM_RETURN_IF_ERROR(CarryChain());
    FATHOM_ASSIGN_OR_RETURN(Totals kept, b_.Tree(entry.id));
    TotalsDelta weight = FromTotals(kept);
    if (auto it = stats_.tree.find(entry.id); it != stats_.tree.end()) weight += it->second;
    return weight;
  }

  Result<EntryId> PutName(EntryId parent, std::string_view name, const Attrs& read,
                          const Observation& seen) {
    if (parent != 0) {
      Result<EntryId> above = ParentOf(parent);
      if (!above.ok()) {
        // A scan's directory removed since the scan put it (by an event applied between its
        // transactions, or its inode number read as another object): what the scan read in
        // it is stale.
        if (seen.generation == 0) return above.status();
        FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> held, b_.EntryById(parent));
        if (held) return above.status();
        return EntryId{0};
      }
    }
    FATHOM_ASSIGN_OR_RETURN(EntryId at_name, b_.NameTarget(parent, name));
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryByIdentity(read.dev, read.ino));
    std::optional<Attrs> newer;
    if (entry && IsStale(entry->seen_ns, seen.time_ns)) {
      // Newer news of the object wins; if it is now of another type (its inode number went to
      // a new object), what was read is gone.
      const bool same_type = (entry->attrs.mode & S_IFMT) == (read.mode & S_IFMT);
      // Unless the same scan read the object since under another name (a hard link, listed
      // in two directories by two workers): both listings stand, with the newer attributes.
      const bool link_of_this_scan = same_type && seen.generation != 0 &&
                                     entry->generation == seen.generation && !IsDir(read) && read.nlink > 1 &&
                                     entry->attrs.nlink > 1;
      if (!link_of_this_scan) return same_type ? entry->id : EntryId{0};
      newer = entry->attrs;
    }
    const Attrs& attrs = newer ? *newer : read;
    bool replaces = at_name != 0 && (!entry || at_name != entry->id);
    if (replaces && !seen.replaces) return EntryId{0};
    if (replaces) {
      FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> holder, b_.EntryById(at_name));
      if (holder && IsStale(holder->seen_ns, seen.time_ns)) return entry ? entry->id : 0;
    }
    if (!entry) {
      FATHOM_ASSIGN_OR_RETURN(int64_t removed_at, b_.LatestRemoval(attrs.dev, attrs.ino));
      if (IsStale(removed_at, seen.time_ns)) return EntryId{0};
    }
    const Removal gone{seen.time_ns, 0, std::nullopt, {}};
    if (entry && (entry->attrs.mode & S_IFMT) != (attrs.mode & S_IFMT)) {
      // The identity was given to another object: the one the catalog holds is gone.
      FATHOM_RETURN_IF_ERROR(RemoveObject(*entry, gone));
      entry.reset();
      // That object may have been the directory asked to hold the name (its inode number
      // went to a file now inside its replacement): nothing is put under a removed directory.
      if (parent != 0 && !dir_parent_.contains(parent)) {
        FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> holder, b_.EntryById(parent));
        if (!holder) return EntryId{0};
      }
      FATHOM_ASSIGN_OR_RETURN(at_name, b_.NameTarget(parent, name));
      replaces = at_name != 0;
    }
    if (replaces) {
      FATHOM_RETURN_IF_ERROR(RemoveName(parent, name, at_name, gone));
      if (entry) {
        FATHOM_ASSIGN_OR_RETURN(entry, b_.EntryById(entry->id));
      }
      at_name = 0;
    }
    if (!entry) return NewObject(parent, name, attrs, seen);

    const EntryId id = entry->id;
    FATHOM_RETURN_IF_ERROR(UpdateAttrs(*entry, attrs, seen));
    if (at_name == id) {
      if (seen.generation != 0) FATHOM_RETURN_IF_ERROR(b_.SetNameGeneration(parent, name, seen.generation));
      return id;
    }
    const bool dir = IsDir(attrs);
    if (!seen.replaces && !(!dir && attrs.nlink > 1)) {
      // Held under another name: its rename is still to come in the stream.
      FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> held, b_.NamesOf(id));
      if (!held.empty()) return EntryId{0};
    }
    if (dir && parent != 0) {
      FATHOM_ASSIGN_OR_RETURN(bool inside, Holds(id, parent));
      if (inside) {
        return Status::Error("catalog " + b_.location() + ": cannot put directory entry " +
                             std::to_string(id) + " as '" + std::string(name) +
                             "' inside its own subtree");
      }
    }
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_.NamesOf(id));
    const bool another_name = names.empty() || (!dir && attrs.nlink > 1);
    touched_.insert(id);
    if (another_name) {  // one more name (a hard link)
      FATHOM_RETURN_IF_ERROR(b_.InsertName(NameRow{parent, std::string(name), id, seen.generation}));
      if (dir) dir_parent_[id] = parent;
      FATHOM_ASSIGN_OR_RETURN(TotalsDelta weight, Weight(*entry));
      if (parent != 0) FATHOM_RETURN_IF_ERROR(AddToChain(parent, weight));
      return id;
    }
    // A rename the catalog missed: one name moves here, any other (stale) names go.
    FATHOM_RETURN_IF_ERROR(MoveName(names.front().parent, names.front().name, *entry, parent, name));
    if (seen.generation != 0) FATHOM_RETURN_IF_ERROR(b_.SetNameGeneration(parent, name, seen.generation));
    for (size_t i = 1; i < names.size(); ++i) {
      if (names[i].parent != 0) {
        FATHOM_RETURN_IF_ERROR(AddToChain(names[i].parent, NameContribution(attrs).Negated()));
      }
      FATHOM_RETURN_IF_ERROR(b_.DeleteName(names[i].parent, names[i].name));
    }
    return id;
  }

  Result<EntryId> NewObject(EntryId parent, std::string_view name, const Attrs& attrs,
                            const Observation& seen) {
    EntryRow row{++last_id_, attrs, seen.time_ns, seen.generation};
    FATHOM_RETURN_IF_ERROR(b_.InsertEntry(row));
    FATHOM_RETURN_IF_ERROR(b_.InsertName(NameRow{parent, std::string(name), row.id, seen.generation}));
    stats_.AddAcct(attrs, +1);
    if (IsDir(attrs)) {
      dir_parent_[row.id] = parent;
      FATHOM_RETURN_IF_ERROR(AddToChain(row.id, NameContribution(attrs)));
    } else if (parent != 0) {
      FATHOM_RETURN_IF_ERROR(AddToChain(parent, NameContribution(attrs)));
    }
    return row.id;
  }

  // New attributes for an object: every name's chain and the accounting follow.
  Status UpdateAttrs(EntryRow& entry, const Attrs& read, const Observation& seen) {
    // Attributes read without Lustre's view (lstat alone: the follower, the settler) keep the
    // one a scan gave the object: its FID and placement do not change with its attributes.
    Attrs kept;
    const bool keep_lustre = !read.lustre && entry.attrs.lustre;
    if (keep_lustre) {
      kept = read;
      kept.lustre = entry.attrs.lustre;
    }
    const Attrs& attrs = keep_lustre ? kept : read;
    if (entry.attrs != attrs) {
      TotalsDelta delta = NameContribution(attrs);
      delta += NameContribution(entry.attrs).Negated();
      FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_.NamesOf(entry.id));
      for (const NameRow& n : names) {
        EntryId from = IsDir(attrs) ? entry.id : n.parent;
        if (from != 0) FATHOM_RETURN_IF_ERROR(AddToChain(from, delta));
      }
      stats_.AddAcct(entry.attrs, -1);
      stats_.AddAcct(attrs, +1);
      entry.attrs = attrs;
    }
    entry.seen_ns = std::max(entry.seen_ns, seen.time_ns);
    if (seen.generation != 0) entry.generation = seen.generation;
    return b_.UpdateEntry(entry);
  }

  // Renames one name of `entry`; its weight leaves the old chain and joins the new one.
  Status MoveName(EntryId parent, std::string_view name, const EntryRow& entry,
                  EntryId new_parent, std::string_view new_name) {
    FATHOM_ASSIGN_OR_RETURN(TotalsDelta weight, Weight(entry));
    if (parent != 0) FATHOM_RETURN_IF_ERROR(AddToChain(parent, weight.Negated()));
    FATHOM_RETURN_IF_ERROR(b_.RenameName(parent, name, new_parent, new_name));
    if (IsDir(entry.attrs)) dir_parent_[entry.id] = new_parent;
    if (new_parent != 0) FATHOM_RETURN_IF_ERROR(AddToChain(new_parent, weight));
    return Status::Ok();
  }

  Status RemovePublic(EntryId parent, std::string_view name, const Removal& removal) {
    FATHOM_ASSIGN_OR_RETURN(EntryId id, b_.NameTarget(parent, name));
    if (id == 0) return Status::Ok();
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryById(id));
    if (entry && IsStale(entry->seen_ns, removal.time_ns)) return Status::Ok();
    return RemoveName(parent, name, id, removal);
  }

  Status MovePublic(EntryId parent, std::string_view name, EntryId new_parent,
                    std::string_view new_name, const Observation& seen, const Removal& replaced) {
    FATHOM_ASSIGN_OR_RETURN(EntryId id, b_.NameTarget(parent, name));
    if (id == 0 || (parent == new_parent && name == new_name)) return Status::Ok();
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryById(id));
    if (!entry || IsStale(entry->seen_ns, seen.time_ns)) return Status::Ok();
    if (new_parent != 0) {
      FATHOM_RETURN_IF_ERROR(ParentOf(new_parent).status());
      if (IsDir(entry->attrs)) {
        FATHOM_ASSIGN_OR_RETURN(bool inside, Holds(id, new_parent));
        if (inside) {
          return Status::Error("catalog " + b_.location() + ": cannot move directory '" +
                               std::string(name) + "' into its own subtree");
        }
      }
    }
    FATHOM_ASSIGN_OR_RETURN(EntryId target, b_.NameTarget(new_parent, new_name));
    if (target == id) return Status::Ok();  // two names of one object: rename(2) does nothing
    if (target != 0) {
      if (parent != 0) {
        FATHOM_ASSIGN_OR_RETURN(bool above, Holds(target, parent));
        if (above) {
          return Status::Error("catalog " + b_.location() + ": cannot move '" + std::string(name) +
                               "' over a directory that holds it");
        }
      }
      FATHOM_RETURN_IF_ERROR(RemoveName(new_parent, new_name, target, replaced));
    }
    FATHOM_RETURN_IF_ERROR(MoveName(parent, name, *entry, new_parent, new_name));
    entry->seen_ns = std::max(entry->seen_ns, seen.time_ns);
    return b_.UpdateEntry(*entry);
  }

  // Removes the name (parent, name) -> id and, below a directory, everything it holds.
  Status RemoveName(EntryId parent, std::string_view name, EntryId id, const Removal& removal) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_.EntryById(id));
    if (!entry) return b_.DeleteName(parent, name);
    FATHOM_ASSIGN_OR_RETURN(TotalsDelta weight, Weight(*entry));
    if (parent != 0) FATHOM_RETURN_IF_ERROR(AddToChain(parent, weight.Negated()));
    FATHOM_ASSIGN_OR_RETURN(std::string path, NamePath(b_, parent, name));
    return DropName(parent, name, *entry, path, removal);
  }

  // Deletes a name whose weight has left the directories above it already.
  Status DropName(EntryId parent, std::string_view name, EntryRow& entry, const std::string& path,
                  const Removal& removal) {
    FATHOM_RETURN_IF_ERROR(b_.DeleteName(parent, name));
    std::vector<NameRow> remaining;
    if (IsDir(entry.attrs)) {
      FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> children, b_.ChildNames(entry.id));
      for (const NameRow& child : children) {
        FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> held, b_.EntryById(child.id));
        if (held) {
          FATHOM_RETURN_IF_ERROR(DropName(entry.id, child.name, *held, JoinPath(path, child.name), removal));
        } else {
          FATHOM_RETURN_IF_ERROR(b_.DeleteName(entry.id, child.name));
        }
      }
      FATHOM_RETURN_IF_ERROR(b_.DeleteTree(entry.id));
      FATHOM_RETURN_IF_ERROR(CarryChain());
      stats_.tree.erase(entry.id);
      dir_parent_.erase(entry.id);
    } else {
      FATHOM_ASSIGN_OR_RETURN(remaining, b_.NamesOf(entry.id));
    }
    touched_.insert(entry.id);
    if (!remaining.empty()) {  // still reachable through another name
      entry.seen_ns = std::max(entry.seen_ns, removal.time_ns);
      return b_.UpdateEntry(entry);
    }
    FATHOM_RETURN_IF_ERROR(b_.InsertRemoved(RemovedEntry{path, entry.attrs, removal}));
    stats_.AddAcct(entry.attrs, -1);
    return b_.DeleteEntry(entry.id);
  }

  Status RemoveObject(const EntryRow& entry, const Removal& removal) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_.NamesOf(entry.id));
    for (const NameRow& n : names) FATHOM_RETURN_IF_ERROR(RemoveName(n.parent, n.name, entry.id, removal));
    return Status::Ok();
  }

  Status WriteStatistics() {
    FATHOM_RETURN_IF_ERROR(CarryChain());
    for (EntryId id : touched_) {
      FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_.NamesOf(id));
      FATHOM_RETURN_IF_ERROR(b_.SetMulti(id, names.size() > 1));
    }
    std::vector<std::pair<EntryId, TotalsDelta>> trees;
    for (const auto& [dir, delta] : stats_.tree) {
      if (!delta.IsZero()) trees.emplace_back(dir, delta);
    }
    FATHOM_RETURN_IF_ERROR(b_.AddTrees(trees));
    for (const auto& [key, delta] : stats_.acct) {
      if (!delta.IsZero()) FATHOM_RETURN_IF_ERROR(b_.AddAcct(key, delta));
    }
    return Status::Ok();
  }

  CatalogBackend& b_;
  std::chrono::seconds retention_;
  EntryId last_id_;
  EntryId stored_last_id_;
  EntryId chain_dir_ = 0;     // AddToChain()'s directory, and the delta not carried up yet
  TotalsDelta chain_delta_;
  bool open_ = true;
  Status failed_;
  PendingStatistics stats_;
  std::unordered_map<EntryId, EntryId> dir_parent_;  // directory -> the directory holding it
  std::unordered_set<EntryId> touched_;              // objects whose names changed
};

}  // namespace

Result<std::unique_ptr<Batch>> BeginBatch(CatalogBackend& backend, std::chrono::seconds retention) {
  if (backend.read_only()) {
    return Status::Error("catalog " + backend.location() +
                         " was opened read-only, so it cannot be changed: open it without "
                         "read_only to write",
                         std::make_error_code(std::errc::read_only_file_system));
  }
  if (backend.InWrite()) {
    return Status::Error("catalog " + backend.location() +
                         ": a batch is already open on this catalog: commit or drop it first");
  }
  FATHOM_RETURN_IF_ERROR(backend.BeginWrite());
  auto last_id = backend.LastEntryId();
  if (!last_id.ok()) {
    backend.RollbackWrite();
    return last_id.status();
  }
  return std::unique_ptr<Batch>(std::make_unique<CatalogBatch>(backend, retention, last_id.value()));
}

}  // namespace fathom::catalog
