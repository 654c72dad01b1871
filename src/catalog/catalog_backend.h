// catalog_backend.h — the seam between the catalog's rules (catalog_batch, catalog_queries,
// recount: backend-neutral) and a database: row-level reads and writes of the catalog's
// tables, with no rule of its own. SQLite implements it (sqlite_backend), and PostgreSQL
// (postgres/pg_backend) with the same tables and the same rows.
//
// Tables (docs/catalog.md): entries (one row per object), names ((parent, name) -> entry),
// tree (a directory's subtree totals), acct (per uid, gid, type), multi (objects with more
// than one name), removed (tombstones with the last path), streams, scans, meta.
//
// A backend is owned by its Catalog and used by one thread at a time; writes happen between
// BeginWrite() and CommitWrite()/RollbackWrite(), reads at any time (inside a write they see
// its changes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/statistics.h"
#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog {

struct EntryRow {
  EntryId id = 0;
  Attrs attrs;
  int64_t seen_ns = 0;        // the newest observation applied to the object
  uint64_t generation = 0;    // the last scan that saw it
};

struct NameRow {
  EntryId parent = 0;
  std::string name;
  EntryId id = 0;
  uint64_t generation = 0;    // the last scan that saw this name
};

struct ScanRow {
  uint64_t generation = 0;
  std::string root;
  int64_t started_ns = 0;
  bool finished = false;
};

struct TableCounts {
  uint64_t entries = 0;
  uint64_t names = 0;
  uint64_t removed = 0;
  int64_t bytes = 0;
};

class CatalogBackend {
 public:
  virtual ~CatalogBackend() = default;

  virtual std::string_view name() const = 0;  // "sqlite", "postgresql"
  virtual const std::string& location() const = 0;
  virtual int schema_version() const = 0;
  virtual bool read_only() const = 0;

  virtual bool InWrite() const = 0;  // between BeginWrite() and its end
  virtual Status BeginWrite() = 0;
  virtual Status CommitWrite() = 0;
  virtual void RollbackWrite() = 0;

  // Batch::Expect's hint: these objects are about to be put (no effect on any answer).
  virtual Status Expect(std::span<const Identity> objects) {
    (void)objects;
    return Status::Ok();
  }

  // Entries.
  virtual Result<std::optional<EntryRow>> EntryById(EntryId id) = 0;
  virtual Result<std::optional<EntryRow>> EntryByIdentity(uint64_t dev, uint64_t ino) = 0;
  virtual Status InsertEntry(const EntryRow& row) = 0;
  virtual Status UpdateEntry(const EntryRow& row) = 0;
  virtual Status DeleteEntry(EntryId id) = 0;
  // The largest id ever given (kept across deletions, so that ids are never reused).
  virtual Result<EntryId> LastEntryId() = 0;
  virtual Status SetLastEntryId(EntryId id) = 0;
  // How many batches were committed (kept in meta as 'commits'; 0 before the first): counted
  // by each commit, read by those who act on a change (alerts).
  virtual Result<uint64_t> Commits() = 0;
  virtual Status CountCommit() = 0;
  // Entries matching `selection`, through the indexes, until `fn` returns false.
  virtual Status SelectEntries(const Selection& selection,
                               const std::function<bool(const EntryRow&)>& fn) = 0;
  // The ids SelectEntries() would hand, read from an index alone where one holds every
  // bound.
  virtual Status SelectIds(const Selection& selection, const std::function<bool(EntryId)>& fn) {
    return SelectEntries(selection, [&](const EntryRow& row) { return fn(row.id); });
  }
  // The entries of `ids` (ascending, no repeats) that exist, in no particular order: one read
  // where the backend can.
  virtual Status EntriesOfMany(std::span<const EntryId> ids, const std::function<void(EntryRow&&)>& fn) {
    for (EntryId id : ids) {
      FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, EntryById(id));
      if (entry) fn(std::move(*entry));
    }
    return Status::Ok();
  }
  // How many entries match `selection`, counting no further than `at_most`, through the
  // indexes alone where they cover the selection.
  virtual Result<uint64_t> CountEntries(const Selection& selection, uint64_t at_most) = 0;
  virtual Status ForEachEntry(const std::function<void(const EntryRow&)>& fn) = 0;

  // Names.
  virtual Result<EntryId> NameTarget(EntryId parent, std::string_view name) = 0;  // 0: none
  virtual Result<std::vector<NameRow>> NamesOf(EntryId id) = 0;
  // The names of every object in `ids` (ascending, no repeats), in no particular order: one
  // read where the backend can (a query's thousands of lookups in one round trip). A backend
  // may leave the generation 0 (queries do not read it), to read its index of names alone.
  virtual Status NamesOfMany(std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) {
    for (EntryId id : ids) {
      FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, NamesOf(id));
      for (const NameRow& n : names) fn(n);
    }
    return Status::Ok();
  }
  // The same for directories: what building paths needs, which a backend may read from a
  // table of directories' names.
  virtual Status DirectoryNamesOfMany(std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) {
    return NamesOfMany(ids, fn);
  }
  virtual Status InsertName(const NameRow& row) = 0;
  virtual Status DeleteName(EntryId parent, std::string_view name) = 0;
  virtual Status RenameName(EntryId parent, std::string_view name, EntryId new_parent,
                            std::string_view new_name) = 0;
  virtual Status SetNameGeneration(EntryId parent, std::string_view name, uint64_t generation) = 0;
  // ChildrenOfMany where only the entries' ids and modes are read (the other attributes left
  // zero); a backend without a cheaper read gives everything.
  virtual Status ChildModesOfMany(std::span<const EntryId> dirs,
                                  const std::function<void(NameRow&&, EntryRow&&)>& fn) {
    return ChildrenOfMany(dirs, fn);
  }
  // A directory's names with their entries, in byte order of the name.
  virtual Result<std::vector<std::pair<NameRow, EntryRow>>> Children(EntryId dir) = 0;
  // The children of every directory in `dirs` (ascending, no repeats), each directory's in
  // byte order of their names, handed over to `fn`: one read where the backend can.
  virtual Status ChildrenOfMany(std::span<const EntryId> dirs,
                                const std::function<void(NameRow&&, EntryRow&&)>& fn) {
    for (EntryId dir : dirs) {
      FATHOM_ASSIGN_OR_RETURN(auto children, Children(dir));
      for (auto& [name, entry] : children) fn(std::move(name), std::move(entry));
    }
    return Status::Ok();
  }
  // The names only (no entry read), in byte order.
  virtual Result<std::vector<NameRow>> ChildNames(EntryId dir) = 0;
  virtual Status ForEachName(const std::function<void(const NameRow&)>& fn) = 0;

  // Statistics.
  virtual Result<Totals> Tree(EntryId dir) = 0;  // zeros when the directory has no row
  virtual Status AddTree(EntryId dir, const TotalsDelta& delta) = 0;
  // AddTree of each (directory, delta): a batch's totals at commit, as few round trips as the
  // backend can.
  virtual Status AddTrees(std::span<const std::pair<EntryId, TotalsDelta>> deltas) {
    for (const auto& [dir, delta] : deltas) FATHOM_RETURN_IF_ERROR(AddTree(dir, delta));
    return Status::Ok();
  }
  virtual Status DeleteTree(EntryId dir) = 0;
  virtual Status AddAcct(const AcctKey& key, const AcctDelta& delta) = 0;
  virtual Result<std::vector<AcctRow>> Accounting() = 0;
  virtual Status ForEachTree(const std::function<void(EntryId, const Totals&)>& fn) = 0;
  virtual Status SetMulti(EntryId id, bool several_names) = 0;
  virtual Result<std::vector<EntryId>> MultiEntries() = 0;
  // The names of directories a backend keeps apart to build paths from (SQLite's dirs table),
  // for the recount to compare with the names: false when it keeps none.
  virtual Result<bool> ForEachKeptDirectoryName(const std::function<void(const NameRow&)>&) { return false; }
  // Recount(repair): that table filled again from the names.
  virtual Status RefillDirectoryNames() { return Status::Ok(); }
  // Recount(repair): the kept statistics replaced wholesale.
  virtual Status ReplaceStatistics(const std::vector<AcctRow>& acct,
                                   const std::vector<std::pair<EntryId, Totals>>& tree,
                                   const std::vector<EntryId>& multi) = 0;

  // Removed objects.
  virtual Status InsertRemoved(const RemovedEntry& removed) = 0;
  // The time of the latest removal of (dev, ino), 0 when none is kept.
  virtual Result<int64_t> LatestRemoval(uint64_t dev, uint64_t ino) = 0;
  virtual Status ExpireRemoved(int64_t before_ns) = 0;
  // Newest first, removed at or after `since_ns`, until `fn` returns false.
  virtual Status ForEachRemoved(int64_t since_ns,
                                const std::function<bool(const RemovedEntry&)>& fn) = 0;

  // Streams and scans.
  virtual Result<uint64_t> StreamPosition(std::string_view stream) = 0;
  // Pending paths: NUL-separated (no path holds a NUL byte), "" for none.
  virtual Result<std::string> StreamPending(std::string_view stream) = 0;
  virtual Status SetStreamPosition(std::string_view stream, uint64_t last_applied,
                                   std::string_view pending) = 0;
  virtual Result<std::optional<ScanRow>> Scan(uint64_t generation) = 0;
  virtual Result<std::optional<ScanRow>> UnfinishedScan(std::string_view root) = 0;
  virtual Result<uint64_t> LastGeneration() = 0;
  virtual Status InsertScan(const ScanRow& scan) = 0;
  virtual Status MarkScanFinished(uint64_t generation, int64_t finished_ns) = 0;
  // The generation of the scan begun while the catalog held no entry, until it finishes
  // (kept in meta as 'first_scan'); 0 when there is none. SetFirstScan(0) forgets it.
  virtual Result<uint64_t> FirstScan() = 0;
  virtual Status SetFirstScan(uint64_t generation) = 0;
  // Indexes that only queries read, which a backend may drop while a first scan fills an
  // empty catalog and build once at its end (inside the caller's write transaction).
  virtual Status DeferQueryIndexes() { return Status::Ok(); }
  virtual Status BuildQueryIndexes() { return Status::Ok(); }

  virtual Result<TableCounts> Counts() = 0;
};

}  // namespace fathom::catalog
