// live_catalog.h — a test-only Catalog whose queries (Stat, Children, Walk, Select) read the
// live file system with lstat/readdir under one root, so that find's engine can be tested
// before a catalog is filled by a scan. It stands in for the real catalog in these tests
// only and will be replaced by the real one filled by a scan. Writes and statistics are
// not part of it (they return an error). Counts Select() and Walk() calls so tests can
// tell which path the engine took. One thread at a time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fathom/catalog.h"

namespace fathom::catalog::find_testing {

class LiveCatalog final : public Catalog {
 public:
  explicit LiveCatalog(std::string root) : root_(std::move(root)) {}

  int select_calls = 0;
  int walk_calls = 0;

  Result<std::unique_ptr<Batch>> Begin() override;
  Result<uint64_t> LastApplied(std::string_view stream) override;
  Result<uint64_t> BeginScan(std::string_view root, bool resume) override;
  Status FinishScan(uint64_t generation, const std::function<void(uint64_t)>& progress) override;
  Result<std::optional<Node>> Stat(std::string_view path) override;
  Status Children(EntryId dir, const std::function<bool(const Node&)>& fn) override;
  Status Walk(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) override;
  Result<std::vector<std::string>> Paths(EntryId id) override;
  Status Select(const Selection& selection, const std::function<bool(const Visit&)>& fn) override;
  Result<Totals> Subtree(EntryId dir) override;
  Result<Totals> Usage(EntryId dir, bool count_links) override;
  Result<std::vector<AcctRow>> Accounting() override;
  Status Removed(std::string_view path_prefix, int64_t since_ns,
                 const std::function<bool(const RemovedEntry&)>& fn) override;
  Result<CatalogInfo> Info() override;
  Result<RecountReport> Recount(bool repair) override;

 private:
  EntryId IdOf(const std::string& path);
  bool Inside(std::string_view path) const;
  // Pre-order below `path`; false when `fn` stopped the walk.
  bool WalkFrom(const std::string& path, int depth, const std::function<WalkStep(const Visit&)>& fn);

  std::string root_;
  std::map<std::string, EntryId> ids_;
  std::vector<std::string> paths_;  // paths_[id - 1]
};

}  // namespace fathom::catalog::find_testing
