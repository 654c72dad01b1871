// lustre_source_benchmark — the Lustre changelog source against the emulator's fast mode.
//
// The fast mode generates changelog records at memory speed (src/lustre_sim/api/fast_log.h:
// per file a MKDIR-or-MTIME, CREAT, CLOSE-or-RENME, SATTR-or-UNLNK cycle, ~1024 live files),
// so these figures are the source's own cost plus liblustreapi's.
//
// BM_Unpack: struct changelog_rec → ChangelogRecord alone.
// BM_Resolve/<cache size>: the resolver alone over generated records (fid2path answered
//   in-process from the generated namespace); the copy of each batch is included.
// BM_LibraryRecv: llapi_changelog_recv + free alone, the floor set by the library.
// BM_LustreSource/<cache size>: the whole source (receive, unpack, resolve, queue, Drain)
//   over kRecords records per iteration; records/s handed out (items_per_second), CPU of the
//   whole process per record (the source's three threads, the library, and freeing the
//   drained events), and fid2path calls per record. Each iteration reads a fresh range of the
//   log with a cold cache.
// BM_Fid2Path: one llapi_fid2path call on the emulator (in-memory; a real Lustre client
//   pays an ioctl and an MDS round trip, tens of microseconds, on top).
// Run: build/lustre_source_benchmark (sets up its own fast-mode file system in $TMPDIR).
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <time.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lustre/changelog_binary.h"
#include "lustre_sim/api/fast_log.h"
#include "lustre_sim/api/fast_mode.h"
#include "sources/lustre/lustre_library.h"
#include "sources/lustre/lustre_source.h"
#include "sources/lustre/lustre_source_impl.h"
#include "sources/lustre/record_resolver.h"

namespace fathom {
namespace {

constexpr uint64_t kRecords = 2'000'000;
const std::string kLibrary = std::string(FATHOM_BUILD_DIR) + "/lustre/liblustreapi.so";

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A fast-mode file system "benchfs" under a scratch registry and state directory.
class FastFileSystem {
 public:
  static FastFileSystem& Get() {
    static FastFileSystem fs;
    return fs;
  }
  bool ok() const { return ok_; }
  // The next unread range of the log: reading ahead of it would change what fid2path sees.
  uint64_t Reserve(uint64_t records) {
    const uint64_t start = next_;
    next_ += records;
    return start;
  }
  ~FastFileSystem() {
    (void)lustre_sim::TeardownFastMode("benchfs");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  FastFileSystem() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base != nullptr ? base : "/tmp") + "/fathom-bench-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) return;
    dir_ = templ;
    setenv("FATHOM_LUSTRE_SIM_RUNDIR", (dir_ + "/run").c_str(), 1);
    lustre_sim::FastModeConfig config;
    config.fsname = "benchfs";
    config.state_dir = dir_ + "/state";
    config.mount = "/mnt/benchfs";  // stands for the client mount the source is given
    ok_ = lustre_sim::SetupFastMode(config).ok();
  }
  std::string dir_;
  bool ok_ = false;
  uint64_t next_ = 0;
};

void BM_LibraryRecv(benchmark::State& state) {
  FastFileSystem& fs = FastFileSystem::Get();
  auto lib = lustre_source::LustreLibrary::Load(kLibrary);
  if (!fs.ok() || !lib.ok()) return state.SkipWithError("no fast-mode file system or library");
  uint64_t records = 0;
  for (auto _ : state) {
    auto reader = lustre_source::ChangelogReader::Open(**lib, "benchfs-MDT0000",
                                                       fs.Reserve(kRecords + 1) + 1, true);
    if (!reader.ok()) return state.SkipWithError(reader.status().message().c_str());
    for (uint64_t i = 0; i < kRecords; ++i) {
      changelog_rec* rec = nullptr;
      if (reader->Receive(&rec) != 0) return state.SkipWithError("llapi_changelog_recv failed");
      const uint64_t index = rec->cr_index;
      benchmark::DoNotOptimize(index);
      reader->Free(&rec);
    }
    records += kRecords;
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
}

void BM_LustreSource(benchmark::State& state) {
  FastFileSystem& fs = FastFileSystem::Get();
  if (!fs.ok()) return state.SkipWithError("no fast-mode file system");
  const auto cache_size = static_cast<size_t>(state.range(0));
  uint64_t records = 0, events = 0, fid2path = 0;
  double cpu = 0;
  std::vector<Event> batch;
  for (auto _ : state) {
    SourceOptions options;
    options.recursive = true;
    options.settings = {{"lustre.device", "benchfs-MDT0000"},
                        {"lustre.mount", "/mnt/benchfs"},
                        {"lustre.library", kLibrary},
                        {"lustre.cache-size", std::to_string(cache_size)}};
    auto created = LustreSourceInfo().create(options);
    if (!created.ok()) return state.SkipWithError(created.status().message().c_str());
    auto& source = static_cast<lustre_source::LustreSource&>(**created);
    // The reader runs ahead of Drain by up to a queue's worth of records: leave room.
    const uint64_t start = fs.Reserve(kRecords + 2 * lustre_source::LustreSource::kMaxQueuedEvents);
    if (!source.Resume(start).ok()) return state.SkipWithError("Resume failed");
    const double cpu0 = CpuSeconds();
    if (!source.Start().ok()) return state.SkipWithError("Start failed");
    while (source.Position() < start + kRecords) {
      if (!source.Wait(std::chrono::milliseconds(100)).ok())
        return state.SkipWithError("Wait failed");
      batch.clear();
      if (!source.Drain(batch).ok()) return state.SkipWithError("Drain failed");
      events += batch.size();
    }
    const uint64_t handed = source.Position() - start;
    const auto counters = source.Counters();
    source.Stop();
    created->reset();
    cpu += CpuSeconds() - cpu0;
    records += handed;
    fid2path += counters.fid2path_calls;
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.counters["cpu_ns/record"] = cpu * 1e9 / static_cast<double>(records);
  state.counters["events/record"] = static_cast<double>(events) / static_cast<double>(records);
  state.counters["fid2path/record"] = static_cast<double>(fid2path) / static_cast<double>(records);
}

void BM_Fid2Path(benchmark::State& state) {
  FastFileSystem& fs = FastFileSystem::Get();
  auto lib = lustre_source::LustreLibrary::Load(kLibrary);
  if (!fs.ok() || !lib.ok()) return state.SkipWithError("no fast-mode file system or library");
  // The MDT's directory "mdt0" exists once record 1 has been read by this process.
  const lustre::Fid mdt_dir{0x200000400, 1, 0};
  for (auto _ : state) {
    auto path = (*lib)->Fid2Path("benchfs", mdt_dir);
    if (!path.ok()) return state.SkipWithError(path.status().message().c_str());
    benchmark::DoNotOptimize(path);
  }
  state.SetItemsProcessed(state.iterations());
}

// The generated log's records 1..n of MDT 0, as the library would unpack them.
std::vector<lustre::ChangelogRecord> GeneratedRecords(uint64_t n) {
  lustre_sim::FastLogSpec spec;
  spec.epoch_ns = 1700000000000000000ull;
  lustre_sim::FastLog log(spec);
  std::vector<lustre::ChangelogRecord> out(n);
  for (uint64_t i = 0; i < n; ++i) log.RecordAt(0, i + 1, out[i]);
  return out;
}

// Unpacking alone: struct changelog_rec bytes to a ChangelogRecord.
void BM_Unpack(benchmark::State& state) {
  const auto records = GeneratedRecords(8192);
  std::vector<std::string> packed;
  for (const auto& r : records) packed.push_back(lustre::PackRecord(r));
  for (auto _ : state) {
    for (const auto& bytes : packed) {
      auto r = lustre::UnpackRecord(std::span<const std::byte>(
          reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(packed.size()));
}

// Resolution alone (cache of range(0) entries; fid2path answers from the generated log).
void BM_Resolve(benchmark::State& state) {
  constexpr uint64_t kBatch = 8192;
  const auto records = GeneratedRecords(64 * kBatch);
  lustre_sim::FastLogSpec spec;
  lustre_sim::FastLog log(spec);
  uint64_t applied = 0, calls = 0;
  lustre_source::ResolverConfig config;
  config.mount = "/mnt/benchfs";
  config.source = "lustre:benchfs-MDT0000";
  config.cache_size = static_cast<size_t>(state.range(0));
  lustre_source::RecordResolver resolver(config, [&](const lustre::Fid& fid) {
    ++calls;
    return log.PathAt(fid, applied);
  });
  std::vector<Event> events;
  size_t next = 0;
  for (auto _ : state) {
    const std::vector<lustre::ChangelogRecord> batch(
        records.begin() + static_cast<long>(next),
        records.begin() + static_cast<long>(next + kBatch));
    applied = next + kBatch;
    events.clear();
    resolver.Resolve(batch, events);
    next = (next + kBatch) % records.size();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kBatch));
  state.counters["fid2path/record"] =
      static_cast<double>(calls) / static_cast<double>(state.iterations() * kBatch);
}

BENCHMARK(BM_Unpack);
BENCHMARK(BM_Resolve)->Arg(0)->Arg(1000)->Arg(5000)->Arg(65536)->Arg(1 << 20);
BENCHMARK(BM_LibraryRecv)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_LustreSource)
    ->Arg(0)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(65536)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_Fid2Path);

}  // namespace
}  // namespace fathom

BENCHMARK_MAIN();
