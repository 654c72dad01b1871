// scanned_catalog.h — the catalog find's tests run on: a real SQLite catalog in a temporary
// directory, filled by a scan of one tree when it is made (so it holds the tree as it was
// then: changes made afterwards make it stale, as a real catalog can be). Forwards every call
// to that catalog and counts Select() and Walk() calls, so tests can tell which path the
// engine took. One thread at a time.
#pragma once

#include <memory>
#include <string>

#include "fathom/catalog.h"
#include "support/temp_dir.h"

namespace fathom::catalog::find_testing {

class ScannedCatalog final : public Catalog {
 public:
  // Scans `root` into a new catalog; a failure is reported through GoogleTest.
  explicit ScannedCatalog(const std::string& root);

  int select_calls = 0;
  int walk_calls = 0;

  Result<std::unique_ptr<Batch>> Begin() override { return c_->Begin(); }
  Result<uint64_t> LastApplied(std::string_view s) override { return c_->LastApplied(s); }
  Result<uint64_t> Commits() override { return c_->Commits(); }
  Result<std::vector<std::string>> Pending(std::string_view s) override { return c_->Pending(s); }
  Result<uint64_t> BeginScan(std::string_view root, bool resume) override {
    return c_->BeginScan(root, resume);
  }
  Status FinishScan(uint64_t generation, const std::function<void(uint64_t)>& progress) override {
    return c_->FinishScan(generation, progress);
  }
  Result<std::optional<Node>> Stat(std::string_view path) override { return c_->Stat(path); }
  Status Children(EntryId dir, const std::function<bool(const Node&)>& fn) override {
    return c_->Children(dir, fn);
  }
  Status Walk(std::string_view path, const std::function<WalkStep(const Visit&)>& fn) override {
    ++walk_calls;
    return c_->Walk(path, fn);
  }
  Result<std::vector<std::string>> Paths(EntryId id) override { return c_->Paths(id); }
  Status Select(const Selection& selection, const std::function<bool(const Visit&)>& fn) override {
    ++select_calls;
    return c_->Select(selection, fn);
  }
  Result<uint64_t> CountSelected(const Selection& selection, uint64_t at_most) override {
    return c_->CountSelected(selection, at_most);
  }
  Result<Totals> Subtree(EntryId dir) override { return c_->Subtree(dir); }
  Result<Totals> Usage(EntryId dir, bool count_links) override { return c_->Usage(dir, count_links); }
  Status Linked(EntryId dir, const std::function<bool(const Node&, const std::vector<std::string>&)>& fn) override {
    return c_->Linked(dir, fn);
  }
  Result<std::vector<AcctRow>> Accounting() override { return c_->Accounting(); }
  Status ForEachAttrs(const std::function<void(const Attrs&)>& fn) override { return c_->ForEachAttrs(fn); }
  Status ForEachSubtree(const std::function<void(EntryId, const Totals&)>& fn) override {
    return c_->ForEachSubtree(fn);
  }
  Status Removed(std::string_view prefix, int64_t since_ns,
                 const std::function<bool(const RemovedEntry&)>& fn) override {
    return c_->Removed(prefix, since_ns, fn);
  }
  Result<CatalogInfo> Info() override { return c_->Info(); }
  Result<RecountReport> Recount(bool repair) override { return c_->Recount(repair); }

 private:
  testing::TempDir dir_;
  std::unique_ptr<Catalog> c_;
};

}  // namespace fathom::catalog::find_testing
