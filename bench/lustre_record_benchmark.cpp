// lustre_record_benchmark — throughput of the Lustre changelog record codecs.
//
// A changelog reader unpacks every record liblustreapi hands out (UnpackRecord) and the
// emulator's `lfs changelog` prints and reads lines (FormatRecordText / ParseRecordText);
// fathom needs ~1M records/s on one core. Each benchmark walks a stream of 4096 distinct
// records of one shape:
//   plain    — Table I's CREAT: head + name (what a reader without extensions receives)
//   lustre   — CREAT with jobid, uid/gid and NID (lfs's default extensions on Lustre 2.15)
//   rename   — RENME with every extension, both names
// Run: build/lustre_record_benchmark
#include <benchmark/benchmark.h>

#include <span>
#include <string>
#include <vector>

#include "lustre/changelog_binary.h"
#include "lustre/changelog_text.h"

namespace fathom::lustre {
namespace {

constexpr size_t kStream = 4096;

enum class Shape { kPlain, kLustre, kRename };

ChangelogRecord Make(Shape shape, size_t i) {
  ChangelogRecord r;
  r.index = 11332885 + i;
  r.type = shape == Shape::kRename ? CL_RENAME : CL_CREATE;
  r.time_ns = 1552084067ull * 1'000'000'000 + 308560896 + i * 1000;
  r.tfid = {0x300005716, static_cast<uint32_t>(0x626c + i), 0};
  r.pfid = {0x300005716, 0xe7, 0};
  r.name = "file-" + std::to_string(i) + ".dat";
  if (shape == Shape::kPlain) return r;
  r.has_jobid = true;
  r.jobid = "ior.1000";
  r.has_extra_flags = true;
  r.extra_flags = CLFE_UIDGID | CLFE_NID;
  r.uid = 1000;
  r.gid = 1000;
  r.nid = "10.0.0." + std::to_string(i % 250) + "@tcp";
  if (shape == Shape::kLustre) return r;
  r.has_rename = true;
  r.sfid = {0x300005716, static_cast<uint32_t>(0x9000 + i), 0};
  r.spfid = {0x300005716, 0xe8, 0};
  r.sname = "old-" + std::to_string(i) + ".dat";
  r.extra_flags |= CLFE_OPEN | CLFE_XATTR;
  r.xattr = "user.tag";
  return r;
}

std::vector<ChangelogRecord> Records(Shape shape) {
  std::vector<ChangelogRecord> v;
  for (size_t i = 0; i < kStream; ++i) v.push_back(Make(shape, i));
  return v;
}

void BM_UnpackRecord(benchmark::State& state, Shape shape) {
  // One contiguous buffer of packed records, as llapi_changelog_recv's read buffer holds.
  std::string stream;
  for (const ChangelogRecord& r : Records(shape)) stream += PackRecord(r);
  const std::span<const std::byte> all(reinterpret_cast<const std::byte*>(stream.data()),
                                       stream.size());
  size_t off = 0;
  for (auto _ : state) {
    size_t used = 0;
    auto r = UnpackRecord(all.subspan(off), &used);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
    off += used;
    if (off == all.size()) off = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (stream.size() / kStream)));
}

void BM_ParseRecordText(benchmark::State& state, Shape shape) {
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (const ChangelogRecord& r : Records(shape)) {
    lines.push_back(FormatRecordText(r));
    bytes += lines.back().size();
  }
  size_t i = 0;
  for (auto _ : state) {
    auto r = ParseRecordText(lines[i]);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
    if (++i == lines.size()) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (bytes / kStream)));
}

void BM_FormatRecordText(benchmark::State& state, Shape shape) {
  const std::vector<ChangelogRecord> recs = Records(shape);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(FormatRecordText(recs[i]));
    if (++i == recs.size()) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_PackRecord(benchmark::State& state, Shape shape) {
  const std::vector<ChangelogRecord> recs = Records(shape);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(PackRecord(recs[i]));
    if (++i == recs.size()) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

BENCHMARK_CAPTURE(BM_UnpackRecord, plain, Shape::kPlain);
BENCHMARK_CAPTURE(BM_UnpackRecord, lustre, Shape::kLustre);
BENCHMARK_CAPTURE(BM_UnpackRecord, rename, Shape::kRename);
BENCHMARK_CAPTURE(BM_ParseRecordText, plain, Shape::kPlain);
BENCHMARK_CAPTURE(BM_ParseRecordText, lustre, Shape::kLustre);
BENCHMARK_CAPTURE(BM_ParseRecordText, rename, Shape::kRename);
BENCHMARK_CAPTURE(BM_FormatRecordText, lustre, Shape::kLustre);
BENCHMARK_CAPTURE(BM_PackRecord, lustre, Shape::kLustre);

}  // namespace
}  // namespace fathom::lustre

BENCHMARK_MAIN();
