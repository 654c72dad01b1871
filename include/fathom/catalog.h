// catalog.h — the metadata catalog: a database mirror of file-system metadata, kept exact by
// scans and live by fathom's own event stream, answering find / du / report without touching
// the file system (docs/catalog.md).
//
// Model (Robinhood's NAMES idea): an entry per object (an inode, identified by st_dev and
// st_ino) and a name per (parent entry, name) -> entry. A root is a name whose parent is 0
// and whose name is the root's absolute path. A directory rename is one name update, hard
// links are several names of one entry.
//
// Kept in the same transaction as every change, never computed at query time:
//   - accounting per (uid, gid, type): count, size, blocks and the ten size buckets;
//   - per directory, the totals of its subtree (the directory itself and every name below
//     it: a file with two names below it counts twice there, Usage() corrects for GNU du);
//   - removed objects (last path, attributes, when, by whom where the source says), kept
//     for a retention period, for `fathom undelete --list`.
// Recount() recomputes all of them from the entries and names and compares.
//
// Observations and freshness: every change carries the time it was observed. An
// observation older than what the catalog holds about that object is ignored, so that a
// scan running while events are applied cannot undo a newer event (a name an event removed
// at T is not brought back by a listing made before T; a rename applied at T is not undone).
// Equal times apply (the later call wins). Tombstones of removed objects are kept as long as
// the removed entries (removed_retention); an observation older than that may resurrect.
//
// Backends: SQLite (one writer at a time, WAL, batched transactions) and PostgreSQL, chosen
// by URI, with the same results. A Catalog object is used from one thread at a time; any
// number of processes may read while one writes. A catalog written by a newer fathom, a file
// that is not a catalog, or a damaged one is refused with an error naming the cause and the
// fix; a transaction is either wholly committed or absent after a crash.
#pragma once

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::catalog {

// The catalog's own id of an object (an entry); 0 is "none" and the parent of every root.
using EntryId = int64_t;

// Lustre's view of an object, where the source has one.
struct LustreInfo {
  std::string fid;                // "[0x200000400:0x1:0x0]"
  uint32_t mdt_index = 0;
  uint32_t stripe_count = 0;
  uint64_t stripe_size = 0;
  std::string pool;
  std::vector<uint32_t> osts;     // OST indexes holding its objects
  friend bool operator==(const LustreInfo&, const LustreInfo&) = default;
};

// One object's attributes as lstat(2)/statx(2) report them.
struct Attrs {
  uint64_t dev = 0;               // st_dev: with ino, the object's identity
  uint64_t ino = 0;               // st_ino
  uint32_t mode = 0;              // st_mode, the S_IFMT type bits included
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t nlink = 0;
  int64_t size = 0;               // bytes
  int64_t blocks = 0;             // 512-byte blocks allocated (st_blocks)
  int64_t atime_ns = 0;           // nanoseconds since the epoch
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  std::string symlink;            // a symbolic link's target, "" for anything else
  std::optional<uint32_t> projid;
  std::optional<LustreInfo> lustre;
  friend bool operator==(const Attrs&, const Attrs&) = default;
};

// An object's identity: st_dev and st_ino.
struct Identity {
  uint64_t dev = 0;
  uint64_t ino = 0;
};

// When and by what a change was seen.
struct Observation {
  int64_t time_ns = 0;            // when the attributes were read / the event happened
  uint64_t generation = 0;        // the scan that saw it (0: not a scan)
  // false: Put() only updates the object the name leads to, or gives a name where there is
  // none (a new object, another link of a hard-linked one); it neither replaces another
  // object at the name nor moves the object from another name (returns 0 then). For a
  // reader of the present while the catalog is at an earlier point of the event stream,
  // whose later events say where those objects went.
  bool replaces = true;
};

// Who removed an object and when, as far as the source says.
struct Removal {
  int64_t time_ns = 0;
  uint64_t event_id = 0;          // the stream event that removed it (0: found gone by a scan)
  std::optional<uint32_t> uid;    // Lustre changelog u=
  std::string jobid;              // Lustre changelog j=
};

struct RemovedEntry {
  std::string path;               // its last path
  Attrs attrs;                    // its last attributes
  Removal removal;
};

// Totals over a set of names.
struct Totals {
  uint64_t files = 0;             // regular files
  uint64_t dirs = 0;
  uint64_t symlinks = 0;
  uint64_t others = 0;            // devices, FIFOs, sockets
  int64_t size = 0;
  int64_t blocks = 0;             // 512-byte blocks
  // The newest mtime in the set. Kept subtree totals hold a high-water mark: additions raise
  // it, removals do not lower it (Recount(true) does); Recount() reports only a mark below
  // the real newest mtime.
  int64_t max_mtime_ns = 0;
  uint64_t entries() const { return files + dirs + symlinks + others; }
  friend bool operator==(const Totals&, const Totals&) = default;
};

// The attributes lstat(2)/stat(2) put in `st` (no symbolic-link target: readlink adds it).
Attrs AttrsFromStat(const struct stat& st);

// `path` made absolute against `cwd` and lexically normal: no ".", "..", empty components or
// trailing '/' ("/" stays "/"); symbolic links are not resolved.
std::string LexicalPath(std::string_view cwd, std::string_view path);

// Robinhood's size profile: 0, 1-31, 32-1K-1, 1K-32K-1, 32K-1M-1, 1M-32M-1, 32M-1G-1,
// 1G-32G-1, 32G-1T-1, >=1T (bucket i > 0 holds sizes whose floor(log2(size) / 5) is i - 1).
inline constexpr int kSizeBuckets = 10;
int SizeBucket(int64_t size);

// Accounting of the objects of one (uid, gid, type): each object counted once.
struct AcctRow {
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t type = 0;              // S_IFMT bits
  uint64_t count = 0;
  int64_t size = 0;
  int64_t blocks = 0;
  std::array<uint64_t, kSizeBuckets> buckets{};
  friend bool operator==(const AcctRow&, const AcctRow&) = default;
};

// A name and the object it leads to.
struct Node {
  EntryId id = 0;
  EntryId parent = 0;
  std::string name;               // for a root: its absolute path
  Attrs attrs;
};

// One step of Walk(): the node, its path and its depth below the walk's start (0).
struct Visit {
  const Node& node;
  std::string_view path;
  int depth = 0;
};

enum class WalkStep { kContinue, kSkipChildren, kStop };

// Objects selected through the catalog's indexes (each bound optional, all must hold);
// Select() then hands every name of each object, so that a selective query costs what it
// selects, not the size of the catalog.
struct Selection {
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;
  std::optional<int64_t> min_size, max_size;          // bytes, inclusive
  std::optional<int64_t> min_mtime_ns, max_mtime_ns;  // inclusive
  std::optional<uint32_t> type;                        // S_IFMT bits
  // Tests of a name alone (all must hold), applied before its path is built, so that the
  // directories above names that fail are never read. A root's name (its absolute path) is
  // not tested.
  std::vector<std::function<bool(std::string_view name)>> name_tests;
};

// What Recount() found: every kept statistic compared with a recomputation.
struct RecountReport {
  uint64_t entries = 0;
  uint64_t names = 0;
  std::vector<std::string> differences;  // "accounting uid=1000 gid=1000 type=file: count 3 != 4"
  bool ok() const { return differences.empty(); }
};

struct CatalogInfo {
  std::string uri;
  std::string backend;            // "sqlite", "postgresql"
  int schema_version = 0;
  uint64_t entries = 0;
  uint64_t names = 0;
  uint64_t removed = 0;
  int64_t bytes = 0;              // size of the database
  std::vector<std::string> roots;
};

struct CatalogOptions {
  // "sqlite:FILE", a plain FILE (SQLite), or "postgresql://..." / "postgres://...".
  std::string uri = "fathom-catalog.db";
  bool read_only = false;         // queries only; never creates or writes
  std::chrono::seconds removed_retention{30 * 24 * 3600};  // removed entries kept this long
  // For a long-lived reader (fathom catalog serve): the paths of the directories above the
  // objects Select() hands are kept between calls, and forgotten when the catalog has taken
  // a commit since (or past a million directories), so that repeated queries read no
  // directory names.
  bool remember_directory_paths = false;
};

// One transaction of changes, applied in order; statistics follow each change. Nothing is
// visible to readers, nor durable, before Commit(). Dropped without Commit(): rolled back.
// One batch at a time per Catalog, which must outlive it; queries on the Catalog while a
// batch is open see its names and entries but the kept statistics only after Commit().
// After a change fails, the batch refuses further work: drop it and begin again.
class Batch {
 public:
  virtual ~Batch() = default;

  // The entry a path leads to (absolute, no trailing '/'), 0 when the catalog has none.
  virtual Result<EntryId> Lookup(std::string_view path) = 0;
  // The same for a directory: 0 also when the catalog holds something else at `path`.
  virtual Result<EntryId> LookupDirectory(std::string_view path) = 0;
  // Every path of the object (dev, ino) the catalog holds, sorted; none when it holds no
  // such object.
  virtual Result<std::vector<std::string>> PathsOf(uint64_t dev, uint64_t ino) = 0;
  // Adds (or updates) a root: an absolute path whose parent the catalog does not hold.
  virtual Result<EntryId> PutRoot(std::string_view path, const Attrs& attrs,
                                  const Observation& seen) = 0;
  // Makes `name` in directory `parent` lead to the object `attrs` describes:
  //  - already so: the attributes are updated;
  //  - another object there: that name is removed first (as Remove());
  //  - this object held under another name: a new name when it is a hard link (not a
  //    directory, nlink > 1), else moved from there (a rename the catalog missed: a
  //    directory keeps its subtree);
  //  - ignored when the catalog's observation of the object (or of its removal) is newer.
  // Returns the object's entry (0 when ignored because the catalog's newer observation of its
  // identity is of another type, or of its removal).
  virtual Result<EntryId> Put(EntryId parent, std::string_view name, const Attrs& attrs,
                              const Observation& seen) = 0;
  // Removes a name; an object left without names is recorded as removed (its last path), a
  // directory with its whole subtree. A name the catalog does not hold is not an error.
  virtual Status Remove(EntryId parent, std::string_view name, const Removal& removal) = 0;
  // Renames (parent, name) to (new_parent, new_name), replacing what is there (recorded as
  // removed with `replaced`): one name update whatever the subtree below it. A name the
  // catalog does not hold is not an error (nothing moves: Put the new name); a directory
  // cannot move into its own subtree, nor over a directory holding it.
  virtual Status Move(EntryId parent, std::string_view name, EntryId new_parent,
                      std::string_view new_name, const Observation& seen,
                      const Removal& replaced) = 0;
  // A hint that Puts of these objects (st_dev, st_ino) follow, such as the entries of a
  // directory a scan read: a backend may read what it holds of them in one go (PostgreSQL
  // does: one round trip instead of several per Put). Changes nothing; no effect on results.
  virtual Status Expect(std::span<const Identity> objects) {
    (void)objects;
    return Status::Ok();
  }
  // Commits; `stream` and `last_applied` (when given) record, in the same transaction, how
  // far a named consumer of the event stream has applied it, and `pending` the paths it has
  // still to read once later events say where they went (Catalog::Pending).
  virtual Status Commit(std::string_view stream = {}, uint64_t last_applied = 0,
                        std::span<const std::string> pending = {}) = 0;
};

// Who a query answers: a user and the groups it belongs to (primary and supplementary).
struct Caller {
  uint32_t uid = 0;
  std::vector<uint32_t> gids;
  // The process's effective user and groups.
  static Caller Current();
  // A user of the system's user database, by name or number, with its groups.
  static Result<Caller> Named(const std::string& user);
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  static Result<std::unique_ptr<Catalog>> Open(const CatalogOptions& options);

  virtual Result<std::unique_ptr<Batch>> Begin() = 0;

  // The last event id a named consumer has applied (0: none), and the paths it committed as
  // pending with it.
  virtual Result<uint64_t> LastApplied(std::string_view stream) = 0;
  virtual Result<std::vector<std::string>> Pending(std::string_view stream) = 0;
  // How many batches were committed to the catalog, by any writer: a number that grows with
  // each commit (0 before the first), so that a reader can tell cheaply whether anything
  // changed since it last looked.
  virtual Result<uint64_t> Commits() = 0;

  // Scans: a generation per scan of a root. FinishScan() removes, in chunks with `progress`
  // (names removed so far), every name under `root` the scan did not see, unless observed
  // after the scan started; an interrupted scan is resumed by BeginScan(resume = true),
  // which returns the unfinished generation.
  virtual Result<uint64_t> BeginScan(std::string_view root, bool resume) = 0;
  virtual Status FinishScan(uint64_t generation,
                            const std::function<void(uint64_t removed)>& progress) = 0;

  // Queries.
  virtual Result<std::optional<Node>> Stat(std::string_view path) = 0;
  // The names in a directory, in byte order of the name, until `fn` returns false.
  virtual Status Children(EntryId dir, const std::function<bool(const Node&)>& fn) = 0;
  // Pre-order from `path` (depth 0), children in byte order of their names.
  virtual Status Walk(std::string_view path,
                      const std::function<WalkStep(const Visit&)>& fn) = 0;
  // Walk() for a caller that reads the names, ids and modes alone (find -name ... -print): the
  // visits' attributes may hold `mode` only (the rest zero), which the catalog reads faster.
  virtual Status WalkModes(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) {
    return Walk(path, fn);
  }
  // Every absolute path of an object, sorted.
  virtual Result<std::vector<std::string>> Paths(EntryId id) = 0;
  // Objects matching `selection`, each with every name it has, until `fn` returns false.
  virtual Status Select(const Selection& selection,
                        const std::function<bool(const Visit&)>& fn) = 0;
  // How many objects at most match `selection`, no more than `at_most`: whether selecting
  // would read less than walking. An upper bound from the kept accounting (owner, group, type,
  // size by bucket) where that bounds it below `at_most`, else counted through the indexes
  // (stopping at `at_most`) when an mtime bound may narrow it further. An empty selection
  // gives the catalog's objects.
  virtual Result<uint64_t> CountSelected(const Selection& selection, uint64_t at_most) = 0;
  // The kept totals of a directory's subtree (per name, the directory itself included).
  virtual Result<Totals> Subtree(EntryId dir) = 0;
  // The same with GNU du's rule: an object with several names below `dir` counted once
  // (every time with `count_links`).
  virtual Result<Totals> Usage(EntryId dir, bool count_links) = 0;
  // The objects with several names, one or more of them below `dir`, each with every path it
  // has, until `fn` returns false (what an earlier argument of du may already have counted).
  virtual Status Linked(EntryId dir,
                        const std::function<bool(const Node&, const std::vector<std::string>&)>& fn) = 0;
  virtual Result<std::vector<AcctRow>> Accounting() = 0;
  // Every object's attributes, each object once, in no order and without its names: for an
  // aggregate of the whole catalog that needs no path (files by age), in one pass over the
  // objects instead of a walk of their names.
  virtual Status ForEachAttrs(const std::function<void(const Attrs&)>& fn) = 0;
  // Every directory's kept subtree totals (as Subtree() gives them), in no order and without
  // its path (Paths() names it): the largest subtrees of the whole catalog in one pass.
  virtual Status ForEachSubtree(const std::function<void(EntryId dir, const Totals&)>& fn) = 0;
  // Removed objects whose last path lies under `path_prefix`, removed at or after
  // `since_ns`, newest first.
  virtual Status Removed(std::string_view path_prefix, int64_t since_ns,
                         const std::function<bool(const RemovedEntry&)>& fn) = 0;

  virtual Result<CatalogInfo> Info() = 0;
  // Recomputes every kept statistic and compares (`repair`: replaces what differs).
  virtual Result<RecountReport> Recount(bool repair) = 0;
};

// A read-only view of `catalog` holding what `caller` could see of the file system with its
// POSIX permission bits (ACLs are not kept): the names in directories the caller may read and
// search (r and x), below directories it may all read and search from the catalog's root, as
// a `find` run by that user would list them (a root is visible). Stat, Children, Walk,
// Select and Paths hold those names only; Subtree and Usage add up the visible names below
// the directory, Accounting the visible objects (walks: the kept totals would count what the
// caller cannot see); Removed holds what the caller owned. Info passes through; Begin,
// BeginScan, FinishScan, Recount, ForEachAttrs and ForEachSubtree are refused. uid 0 sees everything, as the kernel lets
// it. The view keeps what it has worked out (permissions, the subtree totals of every
// directory a walk passed) for its life: make one per query. Owns `catalog`; used from one
// thread at a time, like any Catalog.
std::unique_ptr<Catalog> VisibleTo(std::unique_ptr<Catalog> catalog, Caller caller);
// The same view of a catalog it borrows (which must outlive it): a long-lived process's
// catalog, seen by each of its callers in turn.
std::unique_ptr<Catalog> VisibleTo(Catalog& catalog, Caller caller);

}  // namespace fathom::catalog
