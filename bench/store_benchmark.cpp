// store_benchmark — Google Benchmark micro-benchmarks of the SQLite event store.
//
// BM_AppendBatch/<batch>/<sync_full>: rows/s appended in one transaction per batch.
// BM_AppendBatchBounded: the same with max_events retention removing as many rows as it adds.
// BM_ReplayAll / BM_ReplayPrefix: replay rate over a 1M-event store; for a
//   prefix, items are the rows of the store (the scan rate) and "matched" the events returned.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fathom/store.h"

namespace fathom {
namespace {

constexpr uint64_t kReplayEvents = 1'000'000;
constexpr int kDirectories = 100;

// A fresh directory under $TMPDIR (default /tmp), removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base != nullptr ? base : "/tmp") + "/fathom-bench-XXXXXX";
    if (mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

// Events spread over kDirectories directories two levels deep, like a busy scratch tree.
std::vector<Event> MakeEvents(size_t n, uint64_t first) {
  std::vector<Event> batch(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = first + i;
    Event& e = batch[i];
    e.ts_ns = NowNs();
    e.mask = kind::kCreate;
    e.root = "/scratch/project";
    e.path = "/scratch/project/dir" + std::to_string(k * 7919 % kDirectories) + "/sub" +
             std::to_string(k * 31 % 50) + "/file-" + std::to_string(k) + ".dat";
    e.source = "inotify";
  }
  return batch;
}

struct AppendSetup {
  bool sync_full = false;
  uint64_t max_events = 0;
};

void RunAppend(benchmark::State& state, const AppendSetup& setup) {
  ScratchDir dir;
  StoreOptions options;
  options.path = dir.File("events.db");
  options.sync_full = setup.sync_full;
  options.max_events = setup.max_events;
  if (!dir.ok()) {
    state.SkipWithError("cannot create a directory in $TMPDIR");
    return;
  }
  auto store = EventStore::Open(options);
  if (!store.ok()) {
    state.SkipWithError(store.status().message().c_str());
    return;
  }
  const auto size = static_cast<size_t>(state.range(0));
  std::vector<Event> batch = MakeEvents(size, 0);
  for (auto _ : state) {
    Status s = store.value()->Append(batch);
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(size));
}

void BM_AppendBatch(benchmark::State& state) {
  RunAppend(state, {.sync_full = state.range(1) != 0, .max_events = 0});
}
BENCHMARK(BM_AppendBatch)
    ->ArgNames({"batch", "sync_full"})
    ->ArgsProduct({{1000, 8000}, {0, 1}})
    ->UseRealTime();

void BM_AppendBatchBounded(benchmark::State& state) {
  RunAppend(state, {.sync_full = false, .max_events = 100'000});
}
BENCHMARK(BM_AppendBatchBounded)->ArgName("batch")->Arg(1000)->Arg(8000)->UseRealTime();

// A read-only store of kReplayEvents events, built once per benchmark run.
class ReplayFixture {
 public:
  ReplayFixture() {
    StoreOptions options;
    options.path = dir_.File("events.db");
    options.sync_full = false;
    auto writer = EventStore::Open(options);
    if (!writer.ok()) return;
    for (uint64_t i = 0; i < kReplayEvents; i += 8000) {
      auto batch = MakeEvents(8000, i);
      if (!writer.value()->Append(batch).ok()) return;
    }
    writer.value().reset();
    options.read_only = true;
    auto reader = EventStore::Open(options);
    if (reader.ok()) reader_ = std::move(reader.value());
  }
  EventStore* reader() const { return reader_.get(); }

 private:
  ScratchDir dir_;
  std::unique_ptr<EventStore> reader_;
};

void RunReplay(benchmark::State& state, const std::string& prefix) {
  ReplayFixture fixture;
  if (fixture.reader() == nullptr) {
    state.SkipWithError("cannot build the replay store in $TMPDIR");
    return;
  }
  ReplayQuery query;
  query.path_prefix = prefix;
  uint64_t matched = 0;
  for (auto _ : state) {
    Status s = fixture.reader()->Replay(query, [&](const Event& e) {
      benchmark::DoNotOptimize(e.path.data());
      ++matched;
      return true;
    });
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kReplayEvents));
  state.counters["matched"] =
      benchmark::Counter(static_cast<double>(matched), benchmark::Counter::kIsRate);
}

void BM_ReplayAll(benchmark::State& state) { RunReplay(state, ""); }
BENCHMARK(BM_ReplayAll)->Unit(benchmark::kMillisecond)->UseRealTime();

// One directory of a hundred: 1% of the store.
void BM_ReplayPrefix(benchmark::State& state) { RunReplay(state, "/scratch/project/dir7"); }
BENCHMARK(BM_ReplayPrefix)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fathom

BENCHMARK_MAIN();
