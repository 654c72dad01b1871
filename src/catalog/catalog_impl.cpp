#include "catalog/catalog_impl.h"

#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "catalog/catalog_batch.h"
#include "catalog/catalog_lookup.h"
#include "catalog/catalog_path.h"
#include "catalog/freshness.h"
#include "catalog/recount.h"

namespace fathom::catalog {
namespace {

// Names removed by FinishScan() per transaction.
constexpr size_t kScanRemovalChunk = 10000;
// Directories whose children Walk() reads together, and how many names it looks at to find them.
constexpr size_t kWalkAheadDirs = 256;
constexpr size_t kWalkAheadLooks = 16384;
// Entries whose names and directories Select() reads together.
constexpr size_t kSelectChunk = 4096;

Node ToNode(NameRow&& name, EntryRow&& entry) {
  return Node{entry.id, name.parent, std::move(name.name), std::move(entry.attrs)};
}

Node ToNode(const NameRow& name, const EntryRow& entry) { return ToNode(NameRow(name), EntryRow(entry)); }

class CatalogImpl final : public Catalog {
 public:
  CatalogImpl(std::unique_ptr<CatalogBackend> backend, const CatalogOptions& options)
      : b_(std::move(backend)), options_(options) {}

  Result<std::unique_ptr<Batch>> Begin() override {
    return BeginBatch(*b_, options_.removed_retention);
  }

  Result<std::vector<std::string>> Pending(std::string_view stream) override {
    FATHOM_ASSIGN_OR_RETURN(std::string joined, b_->StreamPending(stream));
    std::vector<std::string> paths;
    for (size_t start = 0; start < joined.size();) {
      size_t end = joined.find('\0', start);
      if (end == std::string::npos) end = joined.size();
      paths.push_back(joined.substr(start, end - start));
      start = end + 1;
    }
    return paths;
  }

  Result<uint64_t> LastApplied(std::string_view stream) override {
    return b_->StreamPosition(stream);
  }
  Result<uint64_t> Commits() override { return b_->Commits(); }

  Result<uint64_t> BeginScan(std::string_view root, bool resume) override {
    FATHOM_RETURN_IF_ERROR(CheckPath(root));
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, Begin());  // the write lock
    if (resume) {
      FATHOM_ASSIGN_OR_RETURN(std::optional<ScanRow> unfinished, b_->UnfinishedScan(root));
      if (unfinished) {
        FATHOM_RETURN_IF_ERROR(batch->Commit());
        return unfinished->generation;
      }
    }
    FATHOM_ASSIGN_OR_RETURN(uint64_t last, b_->LastGeneration());
    ScanRow scan{last + 1, std::string(root), NowNs(), false};
    FATHOM_RETURN_IF_ERROR(b_->InsertScan(scan));
    FATHOM_ASSIGN_OR_RETURN(EntryId last_entry, b_->LastEntryId());
    if (last_entry == 0) {  // a first scan
      FATHOM_RETURN_IF_ERROR(b_->SetFirstScan(scan.generation));
      FATHOM_RETURN_IF_ERROR(b_->DeferQueryIndexes());
    }
    FATHOM_RETURN_IF_ERROR(batch->Commit());
    return scan.generation;
  }

  Status FinishScan(uint64_t generation,
                    const std::function<void(uint64_t removed)>& progress) override {
    FATHOM_ASSIGN_OR_RETURN(std::optional<ScanRow> scan, b_->Scan(generation));
    if (!scan) {
      return Status::Error("catalog " + b_->location() + ": no scan of generation " +
                           std::to_string(generation) + ": begin a scan with BeginScan");
    }
    if (scan->finished) return Status::Ok();
    // The names under the root that the scan did not see, unless their object was observed
    // since the scan started by something else than the scan (an event); below such a
    // directory everything goes with it, so it is not descended. After a first scan there is
    // none: the catalog was empty when it began, so whatever it holds now was seen since.
    std::vector<std::pair<EntryId, std::string>> unseen;
    FATHOM_ASSIGN_OR_RETURN(Located root, LocatePath(*b_, scan->root));
    FATHOM_ASSIGN_OR_RETURN(const uint64_t first_scan, b_->FirstScan());
    std::vector<EntryId> dirs;
    if (root.id != 0 && first_scan != generation) dirs.push_back(root.id);
    while (!dirs.empty()) {
      EntryId dir = dirs.back();
      dirs.pop_back();
      FATHOM_ASSIGN_OR_RETURN(auto children, b_->Children(dir));
      for (const auto& [name, entry] : children) {
        bool event_since = entry.seen_ns >= scan->started_ns && entry.generation != generation;
        if (name.generation != generation && !event_since) {
          unseen.emplace_back(dir, name.name);
        } else if (S_ISDIR(entry.attrs.mode)) {
          dirs.push_back(entry.id);
        }
      }
    }
    const Removal removal{NowNs(), 0, std::nullopt, {}};
    uint64_t removed = 0;
    size_t next = 0;
    do {
      FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, Begin());
      size_t end = std::min(unseen.size(), next + kScanRemovalChunk);
      for (; next < end; ++next) {
        FATHOM_RETURN_IF_ERROR(batch->Remove(unseen[next].first, unseen[next].second, removal));
        ++removed;
      }
      if (next == unseen.size()) {
        FATHOM_RETURN_IF_ERROR(b_->MarkScanFinished(generation, NowNs()));
        if (first_scan == generation) FATHOM_RETURN_IF_ERROR(b_->SetFirstScan(0));
      }
      FATHOM_RETURN_IF_ERROR(batch->Commit());
      if (progress) progress(removed);
    } while (next < unseen.size());
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Batch> batch, Begin());
    FATHOM_RETURN_IF_ERROR(b_->BuildQueryIndexes());
    return batch->Commit();
  }

  Result<std::optional<Node>> Stat(std::string_view path) override {
    FATHOM_ASSIGN_OR_RETURN(Located at, LocatePath(*b_, path));
    if (at.id == 0) return std::optional<Node>();
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_->EntryById(at.id));
    if (!entry) return std::optional<Node>();
    return std::optional<Node>(Node{at.id, at.parent, std::move(at.name), std::move(entry->attrs)});
  }

  Status Children(EntryId dir, const std::function<bool(const Node&)>& fn) override {
    // Inside a walk (find's -empty), a listing it read ahead serves.
    Listing read;
    const Listing* children = nullptr;
    if (walk_ahead_ != nullptr) {
      if (auto it = walk_ahead_->find(dir); it != walk_ahead_->end()) children = &it->second;
    }
    if (children == nullptr) {
      FATHOM_ASSIGN_OR_RETURN(auto rows, b_->Children(dir));
      read.reserve(rows.size());
      for (auto& [name, entry] : rows) read.push_back(ToNode(std::move(name), std::move(entry)));
      children = &read;
    }
    for (const Node& node : *children) {
      if (!fn(node)) break;
    }
    return Status::Ok();
  }

  Status Walk(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) override {
    return WalkFrom(path, fn, /*modes_only=*/false);
  }

  Status WalkModes(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) override {
    return WalkFrom(path, fn, /*modes_only=*/true);
  }

  // Walk, or WalkModes: then the listings hold ids and modes only, and Children() does not
  // serve from them.
  Status WalkFrom(std::string_view path, const std::function<WalkStep(const Visit&)>& fn, bool modes_only) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> start, Stat(path));
    if (!start) {
      return Status::Error("catalog " + b_->location() + " has no entry at " + std::string(path) +
                           ": check the path, or scan it first");
    }
    std::string walk_path(path);
    WalkStep step = fn(Visit{*start, walk_path, 0});
    if (step != WalkStep::kContinue || !S_ISDIR(start->attrs.mode)) return Status::Ok();
    // Depth first, iteratively; each frame a directory's children and the next to visit.
    struct Frame {
      Listing children;
      size_t next = 0;
      size_t path_length = 0;  // of the directory's path
      int depth = 0;           // of its children
    };
    WalkAhead ahead;
    WalkAhead* const outer = std::exchange(walk_ahead_, modes_only ? nullptr : &ahead);
    struct Restore {
      WalkAhead*& at;
      WalkAhead* value;
      ~Restore() { at = value; }
    } restore{walk_ahead_, outer};
    std::vector<Frame> stack;
    FATHOM_ASSIGN_OR_RETURN(Listing first, ListAhead(start->id, stack, ahead, modes_only));
    stack.push_back(Frame{std::move(first), 0, walk_path.size(), 1});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.children.size()) {
        stack.pop_back();
        continue;
      }
      // In the frame's listing, whose storage stays put when the stack grows.
      const Node& node = top.children[top.next++];
      walk_path.resize(top.path_length);
      if (walk_path != "/") walk_path.push_back('/');
      walk_path.append(node.name);
      const int depth = top.depth;
      step = fn(Visit{node, walk_path, depth});
      if (step == WalkStep::kStop) return Status::Ok();
      if (!S_ISDIR(node.attrs.mode)) continue;
      if (step == WalkStep::kSkipChildren) {
        ahead.erase(node.id);
        continue;
      }
      FATHOM_ASSIGN_OR_RETURN(Listing children, ListAhead(node.id, stack, ahead, modes_only));
      stack.push_back(Frame{std::move(children), 0, walk_path.size(), depth + 1});
    }
    return Status::Ok();
  }

  Result<std::vector<std::string>> Paths(EntryId id) override {
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_->NamesOf(id));
    std::vector<std::string> paths;
    for (const NameRow& n : names) {
      FATHOM_ASSIGN_OR_RETURN(std::string path, NamePath(*b_, n.parent, n.name));
      paths.push_back(std::move(path));
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  Status Select(const Selection& selection, const std::function<bool(const Visit&)>& fn) override {
    // In chunks of ids: their names in one read; then, for the names that pass the name tests,
    // the directories above them level by level. With name tests the ids come from the
    // indexes alone and the entries are read only for the names that passed.
    std::optional<DirectoryPaths> own;
    FATHOM_ASSIGN_OR_RETURN(DirectoryPaths * remembered, RememberedPaths());
    DirectoryPaths& dirs = remembered != nullptr ? *remembered : own.emplace(*b_);
    const bool names_first = !selection.name_tests.empty();
    std::vector<EntryId> ids;
    std::unordered_map<EntryId, EntryRow> entries;
    bool stopped = false;
    Status failed;
    auto hand = [&]() -> Status {
      std::sort(ids.begin(), ids.end());
      std::unordered_map<EntryId, std::vector<NameRow>> names;
      FATHOM_RETURN_IF_ERROR(b_->NamesOfMany(ids, [&](const NameRow& n) {
        const bool passes = n.parent == 0 || std::all_of(selection.name_tests.begin(), selection.name_tests.end(),
                                                         [&](const auto& test) { return test(n.name); });
        if (passes) names[n.id].push_back(n);
      }));
      std::vector<EntryId> named, parents;
      for (const auto& [id, rows] : names) {
        named.push_back(id);
        for (const NameRow& n : rows) parents.push_back(n.parent);
      }
      if (names_first) {
        std::sort(named.begin(), named.end());
        FATHOM_RETURN_IF_ERROR(b_->EntriesOfMany(named, [&](EntryRow&& e) { entries.emplace(e.id, std::move(e)); }));
      }
      FATHOM_RETURN_IF_ERROR(dirs.Resolve(std::move(parents)));
      for (const EntryId id : ids) {
        const auto entry = entries.find(id);
        const auto found = names.find(id);
        if (entry == entries.end() || found == names.end()) continue;
        std::vector<NameRow>& rows = found->second;
        std::sort(rows.begin(), rows.end(),
                  [](const NameRow& x, const NameRow& y) { return std::tie(x.parent, x.name) < std::tie(y.parent, y.name); });
        for (const NameRow& n : rows) {
          const DirectoryPaths::Dir* dir = dirs.Find(n.parent);
          const std::string path = dir == nullptr ? n.name : JoinPath(dir->path, n.name);
          const Node node = ToNode(n, entry->second);
          if (!fn(Visit{node, path, dir == nullptr ? 0 : dir->depth + 1})) {
            stopped = true;
            return Status::Ok();
          }
        }
      }
      ids.clear();
      entries.clear();
      return Status::Ok();
    };
    auto take = [&](EntryId id) {
      ids.push_back(id);
      if (ids.size() < kSelectChunk) return true;
      failed = hand();
      return failed.ok() && !stopped;
    };
    FATHOM_RETURN_IF_ERROR(names_first ? b_->SelectIds(selection, take)
                                       : b_->SelectEntries(selection, [&](const EntryRow& entry) {
                                           entries.emplace(entry.id, entry);
                                           return take(entry.id);
                                         }));
    FATHOM_RETURN_IF_ERROR(failed);
    return stopped ? Status::Ok() : hand();
  }

  Result<uint64_t> CountSelected(const Selection& selection, uint64_t at_most) override {
    FATHOM_ASSIGN_OR_RETURN(std::vector<AcctRow> rows, b_->Accounting());
    const uint64_t bound = AccountedUpperBound(rows, selection);
    if (bound < at_most || (!selection.min_mtime_ns && !selection.max_mtime_ns)) return std::min(bound, at_most);
    return b_->CountEntries(selection, at_most);
  }

  Result<Totals> Subtree(EntryId dir) override {
    FATHOM_RETURN_IF_ERROR(CheckDirectory(dir));
    return b_->Tree(dir);
  }

  Status ForEachAttrs(const std::function<void(const Attrs&)>& fn) override {
    return b_->ForEachEntry([&](const EntryRow& row) { fn(row.attrs); });
  }

  Status ForEachSubtree(const std::function<void(EntryId, const Totals&)>& fn) override {
    return b_->ForEachTree(fn);
  }

  Result<Totals> Usage(EntryId dir, bool count_links) override {
    FATHOM_ASSIGN_OR_RETURN(Totals totals, Subtree(dir));
    if (count_links) return totals;
    FATHOM_RETURN_IF_ERROR(ForEachLinkedBelow(dir, [&](const EntryRow& entry, const std::vector<NameRow>&, int64_t inside) {
      const TotalsDelta extra = NameContribution(entry.attrs).Negated();
      for (int64_t i = 1; i < inside; ++i) Apply(extra, totals);
      return true;
    }));
    return totals;
  }

  Status Linked(EntryId dir, const std::function<bool(const Node&, const std::vector<std::string>&)>& fn) override {
    FATHOM_RETURN_IF_ERROR(CheckDirectory(dir));
    Status failed;
    FATHOM_RETURN_IF_ERROR(ForEachLinkedBelow(dir, [&](const EntryRow& entry, const std::vector<NameRow>& names, int64_t) {
      Result<std::vector<std::string>> paths = Paths(entry.id);
      if (!paths.ok()) {
        failed = paths.status();
        return false;
      }
      return fn(Node{entry.id, names.front().parent, names.front().name, entry.attrs}, paths.value());
    }));
    return failed;
  }

  Result<std::vector<AcctRow>> Accounting() override { return b_->Accounting(); }

  Status Removed(std::string_view path_prefix, int64_t since_ns,
                 const std::function<bool(const RemovedEntry&)>& fn) override {
    return b_->ForEachRemoved(since_ns, [&](const RemovedEntry& r) {
      if (!path_prefix.empty() && !PathIsUnder(r.path, path_prefix)) return true;
      return fn(r);
    });
  }

  Result<CatalogInfo> Info() override {
    CatalogInfo info;
    info.uri = options_.uri;
    info.backend = std::string(b_->name());
    info.schema_version = b_->schema_version();
    FATHOM_ASSIGN_OR_RETURN(TableCounts counts, b_->Counts());
    info.entries = counts.entries;
    info.names = counts.names;
    info.removed = counts.removed;
    info.bytes = counts.bytes;
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> roots, b_->ChildNames(0));
    for (NameRow& root : roots) info.roots.push_back(std::move(root.name));
    return info;
  }

  Result<RecountReport> Recount(bool repair) override {
    if (repair && b_->read_only()) {
      return Status::Error("catalog " + b_->location() +
                           " was opened read-only, so a recount cannot repair it: open it "
                           "without read_only to repair");
    }
    return RecountStatistics(*b_, repair);
  }

 private:
  // The directory paths kept between calls (CatalogOptions::remember_directory_paths), as of
  // the catalog's latest commit; nullptr when not kept.
  Result<DirectoryPaths*> RememberedPaths() {
    if (!options_.remember_directory_paths) return nullptr;
    FATHOM_ASSIGN_OR_RETURN(const uint64_t commits, b_->Commits());
    // Bounded: past a million directories (some 100 MB of paths) it starts again.
    constexpr size_t kMaxRemembered = 1'000'000;
    if (!paths_ || commits != paths_commits_ || paths_->size() > kMaxRemembered) {
      paths_ = std::make_unique<DirectoryPaths>(*b_);
      paths_commits_ = commits;
    }
    return paths_.get();
  }

  Status CheckDirectory(EntryId dir) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_->EntryById(dir));
    if (!entry || !S_ISDIR(entry->attrs.mode)) {
      return Status::Error("catalog " + b_->location() + ": entry " + std::to_string(dir) +
                           (entry ? " is not a directory" : " does not exist") +
                           ": subtree totals are kept per directory");
    }
    return Status::Ok();
  }

  Result<EntryId> ParentDir(EntryId dir) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_->NamesOf(dir));
    return names.empty() ? EntryId{0} : names.front().parent;
  }

  // Whether directory `from` is `ancestor` or lies below it (answers remembered in `memo`).
  // Every object with several names, at least one of them below `dir`: its row, its names and
  // how many of them lie below `dir`, until `fn` returns false.
  Status ForEachLinkedBelow(
      EntryId dir, const std::function<bool(const EntryRow&, const std::vector<NameRow>&, int64_t)>& fn) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<EntryId> multi, b_->MultiEntries());
    std::unordered_map<EntryId, bool> below;  // directory -> whether `dir` holds it
    for (EntryId id : multi) {
      FATHOM_ASSIGN_OR_RETURN(std::optional<EntryRow> entry, b_->EntryById(id));
      if (!entry) continue;
      FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> names, b_->NamesOf(id));
      int64_t inside = 0;
      for (const NameRow& n : names) {
        FATHOM_ASSIGN_OR_RETURN(bool held, Holds(dir, n.parent, below));
        inside += held ? 1 : 0;
      }
      if (inside > 0 && !fn(*entry, names, inside)) break;
    }
    return Status::Ok();
  }

  Result<bool> Holds(EntryId ancestor, EntryId from, std::unordered_map<EntryId, bool>& memo) {
    std::vector<EntryId> path;
    bool held = false;
    for (EntryId dir = from; dir != 0 && path.size() <= 4096;) {
      if (dir == ancestor) {
        held = true;
        break;
      }
      if (auto it = memo.find(dir); it != memo.end()) {
        held = it->second;
        break;
      }
      path.push_back(dir);
      FATHOM_ASSIGN_OR_RETURN(dir, ParentDir(dir));
    }
    for (EntryId dir : path) memo[dir] = held;
    return held;
  }

  // A directory's children, as Walk() lists them.
  using Listing = std::vector<Node>;
  // Listings read before their turn, by directory.
  using WalkAhead = std::unordered_map<EntryId, Listing>;

  // The listing of `dir`, from `ahead` or read together with those of the directories the walk
  // of `stack` visits next, in its order (up to kWalkAheadDirs, in one ChildrenOfMany): the
  // directories left in the stack's frames and, below those already read ahead, theirs.
  template <typename Stack>
  Result<Listing> ListAhead(EntryId dir, const Stack& stack, WalkAhead& ahead, bool modes_only) {
    if (auto it = ahead.find(dir); it != ahead.end()) {
      Listing listing = std::move(it->second);
      ahead.erase(it);
      return listing;
    }
    std::vector<EntryId> dirs{dir};
    size_t looked = 0;
    // Each frame's remaining names, top first; a directory read ahead is entered at once.
    std::vector<std::pair<const Listing*, size_t>> order;
    for (const auto& frame : stack) order.emplace_back(&frame.children, frame.next);
    while (!order.empty() && dirs.size() < kWalkAheadDirs && looked < kWalkAheadLooks) {
      auto& [listing, next] = order.back();
      if (next == listing->size()) {
        order.pop_back();
        continue;
      }
      const Node& entry = (*listing)[next++];
      ++looked;
      if (!S_ISDIR(entry.attrs.mode)) continue;
      if (auto it = ahead.find(entry.id); it != ahead.end()) {
        order.emplace_back(&it->second, 0);
      } else {
        dirs.push_back(entry.id);
      }
    }
    std::sort(dirs.begin(), dirs.end());
    dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
    for (EntryId d : dirs) ahead[d];
    // The rows come a directory at a time: one look-up of its listing per directory.
    Listing* listing_of = nullptr;
    EntryId listed = -1;
    auto add = [&](NameRow&& name, EntryRow&& entry) {
      if (name.parent != listed) {
        listed = name.parent;
        listing_of = &ahead[listed];
      }
      listing_of->push_back(ToNode(std::move(name), std::move(entry)));
    };
    FATHOM_RETURN_IF_ERROR(modes_only ? b_->ChildModesOfMany(dirs, add) : b_->ChildrenOfMany(dirs, add));
    Listing listing = std::move(ahead[dir]);
    ahead.erase(dir);
    return listing;
  }

  std::unique_ptr<CatalogBackend> b_;
  CatalogOptions options_;
  std::unique_ptr<DirectoryPaths> paths_;  // RememberedPaths()
  uint64_t paths_commits_ = 0;
  WalkAhead* walk_ahead_ = nullptr;  // the running walk's listings read ahead
};

}  // namespace

std::unique_ptr<Catalog> MakeCatalog(std::unique_ptr<CatalogBackend> backend,
                                     const CatalogOptions& options) {
  return std::make_unique<CatalogImpl>(std::move(backend), options);
}

}  // namespace fathom::catalog
