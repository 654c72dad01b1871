// CompressJob and ExpandJob on traces made up here: the exact round trip on random jobs of
// several processes (runs alike across ranks with offsets a·rank + b, and runs of one's own),
// the grouping of alike runs, and the exact errors for files that are not job files or are
// damaged.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <zstd.h>

#include "fathom/iotrace.h"
#include "iotrace/job_format.h"
#include "iotrace/same_traces.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

using testing::ExpectSame;

std::vector<Trace> RoundTrip(const std::vector<Trace>& traces,
                             CompressionFigures* figures = nullptr) {
  const CompressedJob job = CompressJob(traces);
  if (figures != nullptr) *figures = job.figures;
  auto back = ExpandJob(job.bytes, "job.fiojob");
  EXPECT_TRUE(back.ok()) << back.status().message();
  return back.ok() ? *back : std::vector<Trace>{};
}

constexpr uint8_t kOps[] = {1, 2, 3, 4, 5, 6, 11, 17, 24, 25, 43, 44, 60, 63, 65, 71};

// A job of random processes: a program every rank runs (offsets a·rank + b, each rank its own
// times and durations), with runs of each process's own mixed in, several threads, files
// shared and not, names, an object a process has two ids for, and targets without an object.
std::vector<Trace> RandomJob(uint32_t seed) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  const size_t n = 1 + below(9);
  const std::vector<std::string> paths = {"/scratch/shared.dat", "/scratch/out", "/etc/hosts",
                                          "/tmp/x", "/scratch/out/rank-file-with-a-long-name.h5"};
  struct Step {
    Run run;
    int64_t a;  // offset = a·rank + run.offset
  };
  std::vector<Step> program(below(20));
  for (Step& s : program) {
    s.run.op = kOps[below(sizeof(kOps))];
    s.run.target = static_cast<uint32_t>(1 + below(paths.size()));
    s.run.count = below(3) == 0 ? 1 : 1 + below(1000);
    s.run.has_offset = below(4) != 0;
    s.run.offset = s.run.has_offset ? static_cast<int64_t>(below(1 << 20)) : 0;
    s.run.stride =
        s.run.has_offset && s.run.count > 1 ? static_cast<int64_t>(below(8192)) - 1024 : 0;
    if (s.run.stride < 0) s.run.offset += -s.run.stride * static_cast<int64_t>(s.run.count);
    s.run.size = below(1 << 22);
    s.run.result = below(4) == 0 ? -1 : static_cast<int64_t>(s.run.size);
    s.run.err = s.run.result < 0 ? static_cast<uint32_t>(1 + below(100)) : 0;
    s.run.aux = below(8) == 0 ? 2 : 0;
    s.a = below(3) == 0 ? 0 : static_cast<int64_t>(below(1 << 24));
  }
  std::vector<Trace> traces(n);
  for (size_t p = 0; p < n; ++p) {
    Trace& t = traces[p];
    t.file = "/traces/job/node" + std::to_string(p % 3) + "." + std::to_string(1000 + p) + ".fio";
    t.has_process = below(10) != 0;
    ProcessInfo& info = t.process;
    info.pid = 1000 + p * (1 + below(3));
    info.ppid = below(2) == 0 ? 999 : info.pid - 1;
    info.anchor_realtime_ns = 1'700'000'000'000'000'000ull + below(1'000'000'000);
    info.anchor_monotonic_ns = 5'000'000'000ull + below(1'000'000'000);
    info.quantum_ns = 1'000'000'000;
    info.rank = below(5) == 0 ? -1 : static_cast<int64_t>(p);
    info.uncompressed = below(10) == 0;
    info.uid = 1000;
    info.gid = below(2) == 0 ? 1000 : 100;
    info.host = "node" + std::to_string(p % 3);
    info.job = "job";
    info.exe = below(6) == 0 ? "/usr/bin/python3" : "/home/u/sim";
    info.argv = {info.exe, "--steps", std::to_string(below(3))};
    for (uint32_t id = 1; id <= paths.size(); ++id) {
      if (below(6) == 0) continue;
      const bool name = id == 3 && below(2) == 0;
      t.objects[id] = Object{name ? 0u : 2049u, name ? 0u : 100u + id, paths[id - 1]};
    }
    if (below(4) == 0)
      t.objects[9] = t.objects.count(1) != 0 ? t.objects[1] : Object{2049, 7, "/tmp/again"};
    const uint64_t threads = 1 + below(3);
    uint64_t clock = info.anchor_monotonic_ns + below(1000);
    auto place = [&](Run r) {
      r.tid = info.pid + below(threads) * (below(2) == 0 ? 1 : 7);
      r.t_first = clock;
      r.t_last = r.count == 1 ? r.t_first : r.t_first + r.count - 1 + below(1'000'000);
      r.duration_sum = 100 * r.count + below(10'000);
      r.duration_min = r.count == 1 ? r.duration_sum : std::min<uint64_t>(100, r.duration_sum);
      r.duration_max = r.count == 1 ? r.duration_sum : r.duration_sum - below(50);
      clock = r.t_last + below(2) * below(100'000);
      t.runs.push_back(r);
    };
    for (const Step& s : program) {
      if (below(10) == 0) continue;
      Run r = s.run;
      if (r.has_offset) r.offset += s.a * std::max<int64_t>(info.rank, 0);
      place(r);
      if (below(8) == 0) {  // one of its own
        Run own = s.run;
        own.target = static_cast<uint32_t>(below(12));
        own.count = 1 + below(3);
        place(own);
      }
    }
    t.dropped_buffer_full = below(3);
    t.io_uring_calls = below(2);
    t.end = below(3) == 0 ? End::kNone : below(2) == 0 ? End::kExit : End::kExec;
    t.end_operations = t.Operations() + t.dropped_buffer_full;
    t.frames = 1 + below(5);
    t.bytes = 100 + below(5000);
    if (below(5) == 0)
      t.problems.push_back("the frame at offset 1234 of " + t.file + " fails its checksum");
  }
  return traces;
}

TEST(JobFile, RandomJobsComeBackExactly) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<Trace> traces = RandomJob(seed);
    ExpectSame(traces, RoundTrip(traces));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(JobFile, NoTraceAndEmptyTracesComeBack) {
  ExpectSame({}, RoundTrip({}));
  ExpectSame(std::vector<Trace>(3), RoundTrip(std::vector<Trace>(3)));
}

// One run per rank on a shared file at rank × 4 MiB: one group, offsets 4 MiB·rank + 0.
TEST(JobFile, SegmentsOfRanksAreOneLinearGroup) {
  for (int ranks : {2, 3, 7}) {
    std::vector<Trace> traces(ranks);
    for (int r = 0; r < ranks; ++r) {
      Trace& t = traces[r];
      t.has_process = true;
      t.process.pid = 100 + r;
      t.process.rank = r;
      t.process.quantum_ns = 1'000'000'000;
      t.process.anchor_monotonic_ns = 1'000'000u * r;
      t.objects[4] = {2049, 77, "/scratch/shared.dat"};
      const uint64_t start = 1'000'000u * r + 500;
      t.runs.push_back({static_cast<uint64_t>(100 + r), format::kPwrite, 4, 0, start,
                        start + 900'000, 4, true, int64_t{r} << 22, 1 << 20, 1 << 20, 1 << 20, 0,
                        4000, 900, 1100});
    }
    CompressionFigures fig;
    ExpectSame(traces, RoundTrip(traces, &fig));
    EXPECT_EQ(fig.processes, static_cast<uint64_t>(ranks));
    EXPECT_EQ(fig.operations, 4u * ranks);
    EXPECT_EQ(fig.raw_bytes, 160u * ranks);
    EXPECT_EQ(fig.runs, static_cast<uint64_t>(ranks));
    EXPECT_EQ(fig.groups, 1u);
    EXPECT_EQ(fig.linear_groups, 1u);
  }
}

// Offsets that are not a·rank + b for every member are each member's own; runs that differ in
// anything but times, durations and offsets are groups of their own.
TEST(JobFile, OffsetsOffTheLineAndOtherSizesAreKept) {
  std::vector<Trace> traces(3);
  const int64_t offsets[] = {0, 4096, 10000};
  for (int r = 0; r < 3; ++r) {
    traces[r].process.rank = r;
    traces[r].objects[1] = {1, 2, "/f"};
    traces[r].runs.push_back(
        {1, format::kWrite, 1, 0, 10, 10, 1, true, offsets[r], 0, 4096, 4096, 0, 5, 5, 5});
    traces[r].runs.push_back(
        {1, format::kWrite, 1, 0, 20, 20, 1, true, 512, 0, r == 2 ? 8u : 4096u, 7, 0, 5, 5, 5});
  }
  CompressionFigures fig;
  ExpectSame(traces, RoundTrip(traces, &fig));
  EXPECT_EQ(fig.groups, 3u);         // the first runs; the second of ranks 0 and 1; rank 2's
  EXPECT_EQ(fig.linear_groups, 1u);  // ranks 0 and 1's second runs: offset 0·rank + 512
}

std::string Job() {
  std::vector<Trace> traces(2);
  for (int r = 0; r < 2; ++r) {
    traces[r].process.rank = r;
    traces[r].objects[1] = {1, 2, "/f"};
    traces[r].runs.push_back({1, format::kRead, 1, 0, 10, 10, 1, true, r, 0, 1, 1, 0, 5, 5, 5});
  }
  return CompressJob(traces).bytes;
}

std::string Message(const std::string& bytes) {
  auto traces = ExpandJob(bytes, "bad.fiojob");
  return traces.ok() ? "ok" : traces.status().message();
}

std::string Zstd(const std::string& bytes) {
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 1));
  return out;
}

// A job file's stream: its one frame's payload, decompressed.
std::string Stream(const std::string& job) {
  const std::string payload = job.substr(jobformat::kFileHeaderSize + jobformat::kFrameHeaderSize);
  std::string out(ZSTD_getFrameContentSize(payload.data(), payload.size()), '\0');
  out.resize(ZSTD_decompress(out.data(), out.size(), payload.data(), payload.size()));
  return out;
}

// A job file of one frame, whose checksum holds, of `payload`.
std::string OneFrameJob(const std::string& payload) {
  std::string job = Job().substr(0, jobformat::kFileHeaderSize);
  uint8_t frame[jobformat::kFrameHeaderSize];
  format::PutU32(frame, jobformat::kFrameMagic);
  format::PutU32(frame + 4, static_cast<uint32_t>(payload.size()));
  format::PutU32(frame + 8,
                 format::Crc32(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()));
  job.append(reinterpret_cast<const char*>(frame), sizeof(frame));
  return job + payload;
}

TEST(JobFile, DamageIsAnErrorNamingTheFileAndWhere) {
  EXPECT_EQ(
      Message("FIOTRACE\1\0\0\0\0\0\0\0"),
      "bad.fiojob is not a fathom job file (no FIOJOB header); `fathom io compress` writes them");
  std::string newer = Job();
  newer[8] = 3;
  EXPECT_EQ(Message(newer),
            "bad.fiojob is a job file of format version 3, not the one this fathom reads (2)");
  EXPECT_EQ(Message(Job().substr(0, 16)),
            "bad.fiojob has no frame after its header at offset 16 (cut short)");
  EXPECT_EQ(Message(Job().substr(0, 20)),
            "bad.fiojob ends inside the frame header at offset 16 (cut short)");
  const std::string job = Job();
  EXPECT_EQ(Message(job.substr(0, job.size() - 1)),
            "bad.fiojob ends inside the frame at offset 16 (cut short)");
  std::string flipped = job;
  flipped[30] ^= 1;
  EXPECT_EQ(Message(flipped),
            "the frame at offset 16 of the job file bad.fiojob fails its checksum (damaged)");
  std::string no_frame = job;
  no_frame[16] = 'x';
  EXPECT_EQ(Message(no_frame), "no frame at offset 16 of the job file bad.fiojob (damaged)");

  // Frames that check, holding: bytes that are not Zstandard's; a stream without its sections'
  // lengths; a stream that claims far more than its compressed bytes can hold; a stream cut
  // inside its first object (sections of 5, 0, 0, 0 bytes; 1 object, then dev 5).
  EXPECT_EQ(Message(OneFrameJob("not zstd")),
            "the frames of the job file bad.fiojob do not hold one Zstandard frame with its size "
            "(damaged)");
  EXPECT_EQ(Message(OneFrameJob(Zstd({9, 0, 0, 0}))),
            "the stream of the job file bad.fiojob does not begin with the lengths of its four "
            "sections (damaged)");
  const std::string bomb = Zstd(std::string(4u << 20, '\0'));
  EXPECT_EQ(Message(OneFrameJob(bomb)),
            "the stream of the job file bad.fiojob claims 4194304 bytes, more than its " +
                std::to_string(bomb.size()) + " compressed bytes can hold (damaged)");
  EXPECT_EQ(Message(OneFrameJob(Zstd({5, 0, 0, 0, 1, 0, 0, 0, 5}))),
            "malformed object at byte 5 of the main section of the job file bad.fiojob");

  // Job()'s stream with its last group's members' durations gone: the durations section is
  // where the damage is named.
  const std::string stream = Stream(Job());
  ASSERT_EQ(stream.substr(0, 4), std::string({stream[0], 2, 2, 0}));  // starts 2, durations 2
  const std::string cut = std::string({stream[0], 2, 1, 0}) +
                          stream.substr(4, stream.size() - 4 - 1);
  EXPECT_EQ(Message(OneFrameJob(Zstd(cut))),
            "malformed group 0 at byte 1 of the durations section of the job file bad.fiojob");
}

}  // namespace
}  // namespace fathom::iotrace
