// wire_benchmark: Google Benchmark micro-benchmarks of the wire codec (src/wire): encode and
// decode of Batch and Events frames of typical events (events/s, bytes per event).
// Run: build/wire_benchmark
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "fathom/event.h"
#include "wire/wire_messages.h"

namespace {

using namespace fathom;

// Events as a Lustre MDT collector sends them: two roots and sources, paths sharing their
// directories, a third with attrs.
std::vector<Event> TypicalEvents(size_t n, uint64_t first_id) {
  std::vector<Event> events(n);
  for (size_t i = 0; i < n; ++i) {
    Event& e = events[i];
    e.id = first_id + i;
    e.ts_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(i) * 1'250;
    e.mask = (i % 3 == 0) ? kind::kCreate : kind::kCloseWrite;
    e.root = (i % 2 == 0) ? "/lustre/scratch" : "/lustre/project";
    e.source = "lustre:scratch-MDT0000";
    e.path = e.root + "/users/u" + std::to_string(i % 40) + "/run" + std::to_string(i / 97) +
             "/out." + std::to_string(i) + ".dat";
    if (i % 3 == 0) e.attrs = R"({"fid":"[0x200000401:0x)" + std::to_string(i) + R"(:0x0]"})";
  }
  return events;
}

void Report(benchmark::State& state, size_t events, size_t bytes) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["bytes/event"] = static_cast<double>(bytes) / static_cast<double>(events);
}

void BM_EncodeBatch(benchmark::State& state) {
  const wire::Message batch =
      wire::Batch{"scratch-MDT0000", 1, 1 + static_cast<uint64_t>(state.range(0)),
                  TypicalEvents(static_cast<size_t>(state.range(0)), 0)};
  std::string frame;
  for (auto _ : state) {
    frame.clear();
    wire::Encode(batch, frame);
    benchmark::DoNotOptimize(frame.data());
  }
  Report(state, static_cast<size_t>(state.range(0)), frame.size());
}
BENCHMARK(BM_EncodeBatch)->Arg(8192);

void BM_DecodeBatch(benchmark::State& state) {
  const std::string frame = wire::Encode(wire::Batch{
      "scratch-MDT0000", 1, 1 + static_cast<uint64_t>(state.range(0)),
      TypicalEvents(static_cast<size_t>(state.range(0)), 0)});
  for (auto _ : state) {
    auto message = wire::Decode(frame);
    if (!message.ok()) state.SkipWithError(message.status().message().c_str());
    benchmark::DoNotOptimize(message);
  }
  Report(state, static_cast<size_t>(state.range(0)), frame.size());
}
BENCHMARK(BM_DecodeBatch)->Arg(8192);

// Encode then decode, as one hop collector -> aggregator or aggregator -> consumer costs.
void BM_EncodeDecodeEvents(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const wire::Message events = wire::Events{1000, 1000 + n, TypicalEvents(n, 1001)};
  std::string frame;
  for (auto _ : state) {
    frame.clear();
    wire::Encode(events, frame);
    auto message = wire::Decode(frame);
    if (!message.ok()) state.SkipWithError(message.status().message().c_str());
    benchmark::DoNotOptimize(message);
  }
  Report(state, n, frame.size());
}
BENCHMARK(BM_EncodeDecodeEvents)->Arg(1)->Arg(64)->Arg(8192)->Arg(65536);

void BM_EncodeDecodeBatch(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const wire::Message batch = wire::Batch{"scratch-MDT0000", 1, 1 + n, TypicalEvents(n, 0)};
  std::string frame;
  for (auto _ : state) {
    frame.clear();
    wire::Encode(batch, frame);
    auto message = wire::Decode(frame);
    if (!message.ok()) state.SkipWithError(message.status().message().c_str());
    benchmark::DoNotOptimize(message);
  }
  Report(state, n, frame.size());
}
BENCHMARK(BM_EncodeDecodeBatch)->Arg(8192);

}  // namespace

BENCHMARK_MAIN();
