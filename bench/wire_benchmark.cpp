// wire_benchmark: Google Benchmark micro-benchmarks of the wire codec (src/wire): encode and
// decode of Batch and Events frames of typical events (events/s, bytes per event).
// Run: build/wire_benchmark
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "fathom/event.h"
#include "lustre/lustre_abi.h"
#include "sources/lustre/event_attrs.h"
#include "wire/wire_messages.h"

namespace {

using namespace fathom;

// Events as a Lustre MDT collector sends them: two roots and sources, paths sharing their
// directories, and the attrs the Lustre source writes (src/sources/lustre/event_attrs.h) for
// the emulated MDTs' cycle of CREAT, CLOSE (no parent FID), SATTR and MTIME records.
std::vector<Event> TypicalEvents(size_t n, uint64_t first_id) {
  static constexpr uint32_t kTypes[] = {CL_CREATE, CL_CLOSE, CL_SETATTR, CL_MTIME};
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
    lustre::ChangelogRecord r;
    r.index = 1000 + i;
    r.type = kTypes[i % 4];
    r.flags = r.type == CL_CLOSE ? 66 : 0;
    r.has_jobid = true;
    r.jobid = "bench." + std::to_string(1000 + i / 4);
    r.has_extra_flags = true;
    r.extra_flags = CLFE_UIDGID | CLFE_NID;
    r.uid = 1000 + i / 4;
    r.gid = 1000;
    r.nid = "0@lo";
    const lustre::Fid fid{0x200000400, static_cast<uint32_t>(0x1b + i / 4), 0};
    const lustre::Fid pfid = r.type == CL_CLOSE ? lustre::Fid{} : lustre::Fid{0x200000400, 2, 0};
    lustre_source::AppendEventAttrs(r, fid, pfid, 0, nullptr, e.attrs);
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

// As the aggregator reads a Batch: its chunks checked and kept, no event built.
void BM_DecodeBatchKeepingChunks(benchmark::State& state) {
  const std::string frame = wire::Encode(wire::Batch{
      "scratch-MDT0000", 1, 1 + static_cast<uint64_t>(state.range(0)),
      TypicalEvents(static_cast<size_t>(state.range(0)), 0)});
  std::vector<EncodedChunk> chunks;
  for (auto _ : state) {
    auto message = wire::Decode(frame, &chunks);
    if (!message.ok()) state.SkipWithError(message.status().message().c_str());
    benchmark::DoNotOptimize(message);
  }
  Report(state, static_cast<size_t>(state.range(0)), frame.size());
}
BENCHMARK(BM_DecodeBatchKeepingChunks)->Arg(8192);

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
