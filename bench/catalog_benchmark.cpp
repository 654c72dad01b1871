// Google Benchmark micro-benchmarks of the SQLite catalog: how fast a scan's observations are
// inserted (Put of a generated tree: directories of 100 files, 100 subdirectories per level,
// one transaction per 100,000 entries, the kept statistics included) and how many bytes of
// database each entry costs. Run: build/catalog_benchmark
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "fathom/catalog.h"

namespace {

using fathom::catalog::Attrs;
using fathom::catalog::Batch;
using fathom::catalog::Catalog;
using fathom::catalog::CatalogOptions;
using fathom::catalog::EntryId;
using fathom::catalog::Observation;

constexpr int kFanOut = 100;
constexpr int64_t kEntriesPerCommit = 100000;

Attrs MakeAttrs(uint64_t ino, bool dir) {
  Attrs a;
  a.dev = 2049;
  a.ino = ino;
  a.mode = dir ? (S_IFDIR | 0755) : (S_IFREG | 0644);
  a.uid = 1000 + static_cast<uint32_t>(ino % 7);
  a.gid = 100;
  a.nlink = dir ? 2 : 1;
  a.size = dir ? 4096 : static_cast<int64_t>((ino * 2654435761u) % (1 << 20));
  a.blocks = (a.size + 511) / 512;
  a.atime_ns = a.mtime_ns = a.ctime_ns = 1700000000000000000 + static_cast<int64_t>(ino) * 1000;
  return a;
}

// Puts a tree of `total` entries as a scan would: each directory's files, then its
// subdirectories, breadth first.
void PutTree(Catalog& catalog, int64_t total) {
  const Observation seen{1700000000000000000, 1};
  auto batch = catalog.Begin().value();
  uint64_t ino = 1;
  int64_t in_batch = 0;
  std::vector<EntryId> level{batch->PutRoot("/bench", MakeAttrs(ino++, true), seen).value()};
  int64_t done = 1;
  auto put = [&](EntryId parent, const std::string& name, bool dir) {
    EntryId id = batch->Put(parent, name, MakeAttrs(ino++, dir), seen).value();
    if (++in_batch == kEntriesPerCommit) {
      if (!batch->Commit().ok()) abort();
      batch = catalog.Begin().value();
      in_batch = 0;
    }
    ++done;
    return id;
  };
  while (done < total && !level.empty()) {
    std::vector<EntryId> next;
    for (EntryId dir : level) {
      for (int f = 0; f < kFanOut && done < total; ++f) put(dir, "file-" + std::to_string(f) + ".dat", false);
      for (int d = 0; d < kFanOut && done < total; ++d) next.push_back(put(dir, "dir-" + std::to_string(d), true));
    }
    level = std::move(next);
  }
  if (!batch->Commit().ok()) abort();
}

void BM_PutScannedTree(benchmark::State& state) {
  const int64_t total = state.range(0);
  char dir_template[] = "/tmp/fathom-catalog-bench-XXXXXX";
  std::string dir = mkdtemp(dir_template);
  int64_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove_all(dir + "/catalog.db");
    std::filesystem::remove_all(dir + "/catalog.db-wal");
    std::filesystem::remove_all(dir + "/catalog.db-shm");
    CatalogOptions options;
    options.uri = dir + "/catalog.db";
    auto catalog = Catalog::Open(options).value();
    state.ResumeTiming();
    PutTree(*catalog, total);
    state.PauseTiming();
    bytes = catalog->Info().value().bytes;
    state.ResumeTiming();
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * total);
  state.counters["bytes_per_entry"] = static_cast<double>(bytes) / static_cast<double>(total);
}
BENCHMARK(BM_PutScannedTree)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
