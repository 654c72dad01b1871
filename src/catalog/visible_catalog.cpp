// visible_catalog.cpp — VisibleTo(): the catalog as one user could see the file system.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "catalog/catalog_path.h"
#include "catalog/statistics.h"
#include "fathom/catalog.h"

namespace fathom::catalog {
namespace {

constexpr int kRead = 4;
constexpr int kSearch = 1;

std::string_view ParentPath(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

class VisibleCatalog final : public Catalog {
 public:
  VisibleCatalog(std::shared_ptr<Catalog> catalog, Caller caller)
      : c_(std::move(catalog)), caller_(std::move(caller)) {}

  Result<std::unique_ptr<Batch>> Begin() override { return ReadOnly("write to"); }
  Result<uint64_t> LastApplied(std::string_view stream) override { return c_->LastApplied(stream); }
  Result<uint64_t> Commits() override { return c_->Commits(); }
  Result<std::vector<std::string>> Pending(std::string_view stream) override {
    return c_->Pending(stream);
  }
  Result<uint64_t> BeginScan(std::string_view, bool) override { return ReadOnly("scan into"); }
  Status FinishScan(uint64_t, const std::function<void(uint64_t)>&) override {
    return ReadOnly("scan into");
  }

  Result<std::optional<Node>> Stat(std::string_view path) override {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, c_->Stat(path));
    if (!node || node->parent == 0) return node;
    FATHOM_ASSIGN_OR_RETURN(const bool visible, Listable(ParentPath(path)));
    return visible ? node : std::nullopt;
  }

  Status Children(EntryId dir, const std::function<bool(const Node&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> paths, c_->Paths(dir));
    for (const std::string& path : paths) {
      FATHOM_ASSIGN_OR_RETURN(const bool listable, Listable(path));
      if (listable) return c_->Children(dir, fn);
    }
    return Status::Ok();
  }

  Status Walk(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> start, Stat(path));
    if (!start) return Status::Ok();
    return c_->Walk(path, [&](const Visit& v) {
      const WalkStep step = fn(v);
      // A directory the caller cannot read and search is seen, not what it holds.
      if (step == WalkStep::kContinue && S_ISDIR(v.node.attrs.mode) && !Allows(v.node.attrs, kRead | kSearch)) {
        return WalkStep::kSkipChildren;
      }
      return step;
    });
  }

  Result<std::vector<std::string>> Paths(EntryId id) override {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> paths, c_->Paths(id));
    std::vector<std::string> visible;
    for (std::string& path : paths) {
      FATHOM_ASSIGN_OR_RETURN(const bool shown, NameVisible(path));
      if (shown) visible.push_back(std::move(path));
    }
    return visible;
  }

  // Counts what the caller may not see too: an upper bound, enough to choose a plan.
  Result<uint64_t> CountSelected(const Selection& selection, uint64_t at_most) override {
    return c_->CountSelected(selection, at_most);
  }

  Status Select(const Selection& selection, const std::function<bool(const Visit&)>& fn) override {
    Status failed;
    Status walked = c_->Select(selection, [&](const Visit& v) {
      Result<bool> shown = v.node.parent == 0 ? Result<bool>(true) : Listable(ParentPath(v.path));
      if (!shown.ok()) {
        failed = shown.status();
        return false;
      }
      return !shown.value() || fn(v);
    });
    return failed.ok() ? walked : failed;
  }

  Result<Totals> Subtree(EntryId dir) override { return SubtreeOf(dir); }
  Result<Totals> Usage(EntryId dir, bool count_links) override {
    return count_links ? SubtreeOf(dir) : Sum(dir, /*count_links=*/false);
  }

  Status Linked(EntryId dir, const std::function<bool(const Node&, const std::vector<std::string>&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> dir_paths, Paths(dir));
    if (dir_paths.empty()) return Status::Ok();
    Status failed;
    Status listed = c_->Linked(dir, [&](const Node& node, const std::vector<std::string>& paths) {
      std::vector<std::string> shown;
      for (const std::string& path : paths) {
        Result<bool> visible = NameVisible(path);
        if (!visible.ok()) {
          failed = visible.status();
          return false;
        }
        if (visible.value()) shown.push_back(path);
      }
      const bool below = std::any_of(shown.begin(), shown.end(), [&](const std::string& p) {
        return std::any_of(dir_paths.begin(), dir_paths.end(), [&](const std::string& d) { return PathIsUnder(p, d); });
      });
      return !below || fn(node, shown);
    });
    return failed.ok() ? listed : failed;
  }

  Result<std::vector<AcctRow>> Accounting() override {
    FATHOM_ASSIGN_OR_RETURN(CatalogInfo info, c_->Info());
    std::map<AcctKey, AcctDelta> acct;
    std::unordered_set<EntryId> counted;
    for (const std::string& root : info.roots) {
      FATHOM_RETURN_IF_ERROR(Walk(root, [&](const Visit& v) {
        if (counted.insert(v.node.id).second) acct[AcctKeyOf(v.node.attrs)] += ObjectContribution(v.node.attrs, +1);
        return WalkStep::kContinue;
      }));
    }
    std::vector<AcctRow> rows;
    for (const auto& [key, d] : acct) rows.push_back(RowOf(key, d));
    return rows;
  }

  Status Removed(std::string_view path_prefix, int64_t since_ns,
                 const std::function<bool(const RemovedEntry&)>& fn) override {
    return c_->Removed(path_prefix, since_ns, [&](const RemovedEntry& r) {
      return (caller_.uid != 0 && r.attrs.uid != caller_.uid) || fn(r);
    });
  }

  Result<CatalogInfo> Info() override { return c_->Info(); }
  Result<RecountReport> Recount(bool) override { return ReadOnly("recount"); }
  Status ForEachAttrs(const std::function<void(const Attrs&)>&) override { return WithoutNames(); }
  Status ForEachSubtree(const std::function<void(EntryId, const Totals&)>&) override { return WithoutNames(); }

 private:
  // What a view cannot do: what it shows depends on the names above each object.
  Status WithoutNames() const {
    return Status::Error("the catalog as user " + std::to_string(caller_.uid) +
                         " sees cannot list its objects without their names: walk it instead");
  }

  Status ReadOnly(const std::string& what) const {
    return Status::Error("the catalog as user " + std::to_string(caller_.uid) +
                         " sees is read-only: cannot " + what + " it (run as root, without --as-user)");
  }

  bool Allows(const Attrs& a, int want) const {
    if (caller_.uid == 0) return true;
    int bits = static_cast<int>(a.mode) & 7;
    if (a.uid == caller_.uid) {
      bits = (static_cast<int>(a.mode) >> 6) & 7;
    } else if (std::find(caller_.gids.begin(), caller_.gids.end(), a.gid) != caller_.gids.end()) {
      bits = (static_cast<int>(a.mode) >> 3) & 7;
    }
    return (bits & want) == want;
  }

  // Whether the names in the directory at `path` are visible: it and every directory above it
  // up to its root may be read and searched.
  Result<bool> Listable(std::string_view path) {
    if (auto it = listable_.find(path); it != listable_.end()) return it->second;
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> dir, c_->Stat(path));
    bool listable = dir && S_ISDIR(dir->attrs.mode) && Allows(dir->attrs, kRead | kSearch);
    if (listable && dir->parent != 0) {
      FATHOM_ASSIGN_OR_RETURN(listable, Listable(ParentPath(path)));
    }
    listable_.emplace(std::string(path), listable);
    return listable;
  }

  Result<bool> NameVisible(std::string_view path) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, c_->Stat(path));
    if (!node) return false;
    return node->parent == 0 ? Result<bool>(true) : Listable(ParentPath(path));
  }

  // The visible names below `dir` (itself included); with !count_links an object with several
  // names there counts once, as GNU du counts it.
  // Every name the caller sees below `dir`, in one walk that also keeps the totals of each
  // directory it passes (a report asking for every directory's in turn walks the tree once)
  // and does not enter a directory whose totals are already kept.
  Result<Totals> SubtreeOf(EntryId dir) {
    if (auto it = subtrees_.find(dir); it != subtrees_.end()) return it->second;
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> paths, Paths(dir));
    if (paths.empty()) return Totals{};
    struct Open {
      EntryId id;
      int depth;
      Totals totals;
    };
    std::vector<Open> open;
    auto close_to = [&](int depth) {
      while (!open.empty() && open.back().depth >= depth) {
        Open done = std::move(open.back());
        open.pop_back();
        if (!open.empty()) Apply(FromTotals(done.totals), open.back().totals);
        subtrees_[done.id] = done.totals;
      }
    };
    FATHOM_RETURN_IF_ERROR(Walk(paths.front(), [&](const Visit& v) {
      close_to(v.depth);
      if (!S_ISDIR(v.node.attrs.mode)) {
        Apply(NameContribution(v.node.attrs), open.back().totals);
        return WalkStep::kContinue;
      }
      if (auto kept = subtrees_.find(v.node.id); kept != subtrees_.end() && v.depth > 0) {
        Apply(FromTotals(kept->second), open.back().totals);
        return WalkStep::kSkipChildren;
      }
      open.push_back({v.node.id, v.depth, Totals{}});
      Apply(NameContribution(v.node.attrs), open.back().totals);
      return WalkStep::kContinue;
    }));
    close_to(0);
    return subtrees_[dir];
  }

  Result<Totals> Sum(EntryId dir, bool count_links) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> paths, Paths(dir));
    Totals totals;
    if (paths.empty()) return totals;
    std::unordered_set<EntryId> counted;
    FATHOM_RETURN_IF_ERROR(Walk(paths.front(), [&](const Visit& v) {
      const bool several = !S_ISDIR(v.node.attrs.mode) && v.node.attrs.nlink > 1;
      if (count_links || !several || counted.insert(v.node.id).second) {
        Apply(NameContribution(v.node.attrs), totals);
      }
      return WalkStep::kContinue;
    }));
    return totals;
  }

  std::shared_ptr<Catalog> c_;  // owned, or borrowed (a no-op deleter)
  Caller caller_;
  std::map<std::string, bool, std::less<>> listable_;
  std::unordered_map<EntryId, Totals> subtrees_;  // kept by SubtreeOf for the view's life
};

}  // namespace

std::unique_ptr<Catalog> VisibleTo(std::unique_ptr<Catalog> catalog, Caller caller) {
  return std::make_unique<VisibleCatalog>(std::shared_ptr<Catalog>(std::move(catalog)), std::move(caller));
}

std::unique_ptr<Catalog> VisibleTo(Catalog& catalog, Caller caller) {
  return std::make_unique<VisibleCatalog>(std::shared_ptr<Catalog>(&catalog, [](Catalog*) {}), std::move(caller));
}

}  // namespace fathom::catalog
