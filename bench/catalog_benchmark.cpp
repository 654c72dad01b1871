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
#include "synthetic_catalog.h"

namespace {

using fathom::catalog::Catalog;
using fathom::catalog::CatalogOptions;

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
    fathom::bench::PutSyntheticTree(*catalog, total);
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
