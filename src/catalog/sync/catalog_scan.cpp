#include "catalog/sync/catalog_scan.h"

#include <chrono>
#include <thread>
#include <unordered_map>

namespace fathom::catalog {
namespace {

// Writes the scanner's chunks into the catalog, one transaction per `commit_entries`.
class CatalogSink final : public scan::ScanSink {
 public:
  CatalogSink(Catalog& catalog, const CatalogScanOptions& options,
              const CatalogScanCallbacks& callbacks, scan::Scanner& scanner)
      : catalog_(catalog), options_(options), callbacks_(callbacks), scanner_(scanner) {}

  void SetGeneration(const std::string& root, uint64_t generation) {
    generations_[root] = generation;
  }

  // Chunks are held until they hold kExpectEntries entries, then announced to the batch
  // together (Batch::Expect: one read of them all on PostgreSQL) and written in order.
  void OnChunk(scan::ScanChunk&& chunk) override {
    if (!status_.ok()) return;
    held_entries_ += chunk.entries.size();
    held_.push_back(std::move(chunk));
    if (held_entries_ >= kExpectEntries) status_ = WriteHeld();
    if (!status_.ok()) scanner_.Stop();
  }

  void OnProblem(scan::ScanProblem&& problem) override {
    ++summary_.problems;
    if (callbacks_.problem) callbacks_.problem(problem);
  }

  Status Finish() {
    if (status_.ok()) status_ = WriteHeld();
    if (status_.ok() && batch_) status_ = Commit();
    return status_;
  }

  const CatalogScanSummary& summary() const { return summary_; }

 private:
  struct Dir {
    EntryId id = 0;
    uint64_t generation = 0;
  };

  static constexpr size_t kExpectEntries = 1024;

  Status WriteHeld() {
    if (held_.empty()) return Status::Ok();
    if (!batch_) {
      FATHOM_ASSIGN_OR_RETURN(batch_, catalog_.Begin());
    }
    identities_.clear();
    for (const scan::ScanChunk& chunk : held_) {
      for (const scan::ScanEntry& e : chunk.entries) identities_.push_back(Identity{e.attrs.dev, e.attrs.ino});
    }
    FATHOM_RETURN_IF_ERROR(batch_->Expect(identities_));
    for (const scan::ScanChunk& chunk : held_) FATHOM_RETURN_IF_ERROR(Write(chunk));
    held_.clear();
    held_entries_ = 0;
    return Status::Ok();
  }

  Status Write(const scan::ScanChunk& chunk) {
    if (!batch_) {
      FATHOM_ASSIGN_OR_RETURN(batch_, catalog_.Begin());
    }
    Dir dir;
    if (chunk.parent_token == 0) {
      auto generation = generations_.find(chunk.path);
      if (generation == generations_.end()) {
        return Status::Error("catalog scan: the scanner reported a root " + chunk.path +
                             " it was not given");
      }
      dir.generation = generation->second;
      Observation seen = chunk.observation;
      seen.generation = dir.generation;
      FATHOM_ASSIGN_OR_RETURN(dir.id, PutScanRoot(chunk.path, chunk.attrs, seen));
    } else if (auto it = dirs_.find(chunk.dir_token); it != dirs_.end()) {
      dir = it->second;
    }
    // dir.id == 0: the catalog knows the directory is gone (a newer event removed it), so
    // what the scan read in it is stale.
    if (dir.id != 0) {
      Observation seen = chunk.observation;
      seen.generation = dir.generation;
      for (const scan::ScanEntry& e : chunk.entries) {
        FATHOM_ASSIGN_OR_RETURN(const EntryId id, batch_->Put(dir.id, e.name, e.attrs, seen));
        if (e.dir_token != 0) dirs_[e.dir_token] = Dir{id, dir.generation};
      }
      summary_.entries += chunk.entries.size();
      pending_ += chunk.entries.size();
    }
    if (chunk.last) dirs_.erase(chunk.dir_token);
    if (pending_ >= options_.commit_entries) return Commit();
    return Status::Ok();
  }

  // A scan's root is a root of the catalog, or a directory below one (a subtree rescanned).
  Result<EntryId> PutScanRoot(const std::string& path, const Attrs& attrs, const Observation& seen) {
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos && path.size() > 1) {
      FATHOM_ASSIGN_OR_RETURN(const EntryId parent,
                              batch_->Lookup(slash == 0 ? std::string_view("/")
                                                        : std::string_view(path).substr(0, slash)));
      if (parent != 0) return batch_->Put(parent, std::string_view(path).substr(slash + 1), attrs, seen);
    }
    return batch_->PutRoot(path, attrs, seen);
  }

  Status Commit() {
    Status committed = batch_->Commit();
    batch_.reset();
    pending_ = 0;
    return committed;
  }

  Catalog& catalog_;
  const CatalogScanOptions& options_;
  const CatalogScanCallbacks& callbacks_;
  scan::Scanner& scanner_;
  std::unordered_map<std::string, uint64_t> generations_;
  std::unordered_map<uint64_t, Dir> dirs_;  // scan token -> entry, for directories not done
  std::unique_ptr<Batch> batch_;
  std::vector<scan::ScanChunk> held_;  // chunks not written yet, in the scanner's order
  size_t held_entries_ = 0;
  std::vector<Identity> identities_;   // the held chunks' objects, announced to the batch
  uint64_t pending_ = 0;
  Status status_;
  CatalogScanSummary summary_;
};

}  // namespace

Result<CatalogScanSummary> ScanIntoCatalog(Catalog& catalog, const std::vector<std::string>& roots,
                                           const CatalogScanOptions& options,
                                           const CatalogScanCallbacks& callbacks,
                                           const std::atomic<bool>& stop) {
  scan::Scanner scanner(options.scan);
  CatalogSink sink(catalog, options, callbacks, scanner);
  std::vector<uint64_t> generations;
  for (const std::string& root : roots) {
    FATHOM_ASSIGN_OR_RETURN(const uint64_t generation, catalog.BeginScan(root, options.resume));
    sink.SetGeneration(root, generation);
    generations.push_back(generation);
  }

  // Progress and stop requests are watched beside the scan, which runs on this thread.
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (stop.load()) scanner.Stop();
      if (callbacks.progress) callbacks.progress(scanner.Progress());
      for (int i = 0; i < 10 && !done.load() && !stop.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });
  Status scanned = scanner.Run(roots, sink);
  done = true;
  watcher.join();
  Status written = sink.Finish();
  if (callbacks.progress) callbacks.progress(scanner.Progress());
  FATHOM_RETURN_IF_ERROR(written);
  FATHOM_RETURN_IF_ERROR(scanned);

  CatalogScanSummary summary = sink.summary();
  for (const uint64_t generation : generations) {
    uint64_t removed = 0;
    FATHOM_RETURN_IF_ERROR(catalog.FinishScan(generation, [&](uint64_t so_far) {
      removed = so_far;
      if (callbacks.cleanup) callbacks.cleanup(summary.removed + so_far);
    }));
    summary.removed += removed;
  }
  return summary;
}

}  // namespace fathom::catalog
