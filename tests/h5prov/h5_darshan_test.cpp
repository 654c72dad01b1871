// Darshan's H5F and H5D counters computed from traces made by hand, every figure known: counts,
// bytes, read/write switches, selections (H5S_ALL counts in none), size buckets with Darshan's
// bounds, the four commonest accesses with D1 the last dimension, dataspace and chunking,
// timestamps in seconds from the first call, times without overlap, and the reduction of a
// dataset every rank of an MPI job used to one record of rank -1 (fastest and slowest rank,
// variances). Darshan itself is not packaged for this system, so the expected values are worked
// out from Darshan's counter definitions (darshan-hdf5-log-format.h) rather than from its output.
#include <gtest/gtest.h>

#include "fathom/h5prov.h"
#include "h5prov/h5_trace_builder.h"

namespace fathom::h5prov {
namespace {

namespace f = format;
using testing::TraceBuilder;

constexpr uint64_t kUs = 1000;

// The value of counter `name` in `counters` (a failure if it has none).
template <typename T>
T ValueOf(const std::vector<std::pair<std::string, T>>& counters, const std::string& name) {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no counter " << name;
  return T(-999);
}

int64_t Counter(const DarshanRecord& r, const std::string& name) { return ValueOf(r.counters, name); }
double FCounter(const DarshanRecord& r, const std::string& name) { return ValueOf(r.fcounters, name); }

// A serial process: create /data/f.h5 and a chunked 6x8 dataset of 4-byte elements, two 2x3
// hyperslab writes, a read of everything, a point write, an irregular write of 2000 bytes, a
// dataset flush and close, a file flush and close. Calls follow each other from t = 0.
Trace Serial() {
  TraceBuilder b("s.fh5", -1, 10);
  Object& ds = b.t.objects[2];
  ds.dims = {6, 8};
  ds.type_size = 4;
  ds.layout = "chunked";
  ds.chunk = {3, 4};
  b.Add(f::kFcreate, 100 * kUs, 1).Add(f::kDcreate2, 200 * kUs, 2);                 // [0, 100) [100, 300)
  b.Add(f::kDwrite, 1000 * kUs, 2, 24).Select("regular", {2, 3}, {1, 1});          // [300, 1300)
  b.Add(f::kDwrite, 3000 * kUs, 2, 24).Select("regular", {2, 3}, {1, 1});          // [1300, 4300)
  b.Add(f::kDread, 500 * kUs, 2, 192).Select("all");                               // [4300, 4800)
  b.Add(f::kDwrite, 100 * kUs, 2, 8).Select("points");                             // [4800, 4900)
  b.Add(f::kDwrite, 400 * kUs, 2, 2000).Select("irregular");                       // [4900, 5300)
  b.Add(f::kDflush, 50 * kUs, 2).Add(f::kDclose, 60 * kUs, 2);                     // [5300, 5350) [5350, 5410)
  b.Add(f::kFflush, 70 * kUs, 1).Add(f::kFclose, 80 * kUs, 1);                     // [5410, 5480) [5480, 5560)
  b.Add(f::kDwrite, 10 * kUs, 2, 24).t.calls.back().failed = true;                // failed: not counted
  return b.t;
}

TEST(H5Darshan, FileCountersOfASerialProcess) {
  const std::vector<DarshanRecord> records = DarshanRecords({Serial()});
  ASSERT_EQ(records.size(), 2u);
  const DarshanRecord& file = records[0];
  EXPECT_EQ(file.module, "H5F");
  EXPECT_EQ(file.rank, 0);
  EXPECT_EQ(file.name, "/data/f.h5");
  EXPECT_EQ(Counter(file, "H5F_OPENS"), 1);
  EXPECT_EQ(Counter(file, "H5F_FLUSHES"), 1);
  EXPECT_EQ(Counter(file, "H5F_USE_MPIIO"), 0);
  EXPECT_DOUBLE_EQ(FCounter(file, "H5F_F_OPEN_START_TIMESTAMP"), 0);
  EXPECT_NEAR(FCounter(file, "H5F_F_OPEN_END_TIMESTAMP"), 100e-6, 1e-12);
  EXPECT_NEAR(FCounter(file, "H5F_F_CLOSE_START_TIMESTAMP"), 5480e-6, 1e-12);
  EXPECT_NEAR(FCounter(file, "H5F_F_CLOSE_END_TIMESTAMP"), 5560e-6, 1e-12);
  EXPECT_NEAR(FCounter(file, "H5F_F_META_TIME"), 250e-6, 1e-12);
  ASSERT_EQ(file.counters.size(), 3u);
  ASSERT_EQ(file.fcounters.size(), 5u);
}

TEST(H5Darshan, DatasetCountersOfASerialProcess) {
  const DarshanRecord d = DarshanRecords({Serial()})[1];
  EXPECT_EQ(d.module, "H5D");
  EXPECT_EQ(d.name, "/data/f.h5:/grp/ds");
  EXPECT_EQ(d.file_id, DarshanRecords({Serial()})[0].id);
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"H5D_OPENS", 1}, {"H5D_READS", 1}, {"H5D_WRITES", 4}, {"H5D_FLUSHES", 1}, {"H5D_BYTES_READ", 192},
      {"H5D_BYTES_WRITTEN", 2056}, {"H5D_RW_SWITCHES", 2}, {"H5D_REGULAR_HYPERSLAB_SELECTS", 2},
      {"H5D_IRREGULAR_HYPERSLAB_SELECTS", 1}, {"H5D_POINT_SELECTS", 1}, {"H5D_MAX_READ_TIME_SIZE", 192},
      {"H5D_MAX_WRITE_TIME_SIZE", 24}, {"H5D_SIZE_READ_AGG_0_100", 0}, {"H5D_SIZE_READ_AGG_100_1K", 1},
      {"H5D_SIZE_WRITE_AGG_0_100", 3}, {"H5D_SIZE_WRITE_AGG_100_1K", 0}, {"H5D_SIZE_WRITE_AGG_1K_10K", 1},
      {"H5D_SIZE_WRITE_AGG_1G_PLUS", 0},
      // Two accesses of 24 B (a 2x3 hyperslab: D1, the last dimension, is 3 long), then the
      // others once each, the larger first.
      {"H5D_ACCESS1_ACCESS", 24}, {"H5D_ACCESS1_LENGTH_D1", 3}, {"H5D_ACCESS1_LENGTH_D2", 2},
      {"H5D_ACCESS1_LENGTH_D3", 0}, {"H5D_ACCESS1_STRIDE_D1", 1}, {"H5D_ACCESS1_STRIDE_D2", 1},
      {"H5D_ACCESS1_COUNT", 2}, {"H5D_ACCESS2_ACCESS", 2000}, {"H5D_ACCESS2_LENGTH_D1", 0}, {"H5D_ACCESS2_COUNT", 1},
      {"H5D_ACCESS3_ACCESS", 192}, {"H5D_ACCESS3_COUNT", 1}, {"H5D_ACCESS4_ACCESS", 8}, {"H5D_ACCESS4_COUNT", 1},
      {"H5D_DATASPACE_NDIMS", 2}, {"H5D_DATASPACE_NPOINTS", 48}, {"H5D_DATATYPE_SIZE", 4},
      {"H5D_CHUNK_SIZE_D1", 4}, {"H5D_CHUNK_SIZE_D2", 3}, {"H5D_CHUNK_SIZE_D3", 0},
      {"H5D_USE_MPIIO_COLLECTIVE", 0}, {"H5D_USE_DEPRECATED", 0}, {"H5D_FASTEST_RANK", 0},
      {"H5D_FASTEST_RANK_BYTES", 2248}, {"H5D_SLOWEST_RANK", 0}, {"H5D_SLOWEST_RANK_BYTES", 2248}};
  for (const auto& [name, value] : expected) EXPECT_EQ(Counter(d, name), value) << name;
  EXPECT_EQ(d.counters.size(), 12u + 20u + 4u * 11u + 4u + 3u + 5u + 2u + 4u);  // Darshan's 94
  const std::vector<std::pair<std::string, double>> times = {
      {"H5D_F_OPEN_START_TIMESTAMP", 100e-6},  {"H5D_F_READ_START_TIMESTAMP", 4300e-6},
      {"H5D_F_WRITE_START_TIMESTAMP", 300e-6}, {"H5D_F_CLOSE_START_TIMESTAMP", 5350e-6},
      {"H5D_F_OPEN_END_TIMESTAMP", 300e-6},    {"H5D_F_READ_END_TIMESTAMP", 4800e-6},
      {"H5D_F_WRITE_END_TIMESTAMP", 5300e-6},  {"H5D_F_CLOSE_END_TIMESTAMP", 5410e-6},
      {"H5D_F_READ_TIME", 500e-6},             {"H5D_F_WRITE_TIME", 4500e-6},
      {"H5D_F_META_TIME", 310e-6},             {"H5D_F_MAX_READ_TIME", 500e-6},
      {"H5D_F_MAX_WRITE_TIME", 3000e-6},       {"H5D_F_FASTEST_RANK_TIME", 5310e-6},
      {"H5D_F_SLOWEST_RANK_TIME", 5310e-6},    {"H5D_F_VARIANCE_RANK_TIME", 0},
      {"H5D_F_VARIANCE_RANK_BYTES", 0}};
  ASSERT_EQ(d.fcounters.size(), times.size());
  for (size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(d.fcounters[i].first, times[i].first);  // in Darshan's order
    EXPECT_NEAR(d.fcounters[i].second, times[i].second, 1e-12) << times[i].first;
  }
}

TEST(H5Darshan, ADatasetOfEveryRankIsOneSharedRecordWithItsFastestAndSlowestRank) {
  std::vector<Trace> traces;
  for (int rank = 0; rank < 2; ++rank) {
    TraceBuilder b("r" + std::to_string(rank) + ".fh5", rank, 10 + rank, "mpi");
    b.t.process.flavour = "openmpi";
    b.Add(f::kFopen, 10 * kUs, 1);
    b.Add(f::kDwrite, (rank == 0 ? 1000 : 3000) * kUs, 2, 400).Select("regular", {1, 100}, {1, 1});
    b.t.calls.back().transfer = "collective";
    traces.push_back(b.t);
  }
  const std::vector<DarshanRecord> records = DarshanRecords(traces);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].rank, -1);
  EXPECT_EQ(Counter(records[0], "H5F_OPENS"), 2);
  EXPECT_EQ(Counter(records[0], "H5F_USE_MPIIO"), 1);
  const DarshanRecord& d = records[1];
  EXPECT_EQ(d.rank, -1);
  EXPECT_EQ(Counter(d, "H5D_WRITES"), 2);
  EXPECT_EQ(Counter(d, "H5D_BYTES_WRITTEN"), 800);
  EXPECT_EQ(Counter(d, "H5D_ACCESS1_ACCESS"), 400);
  EXPECT_EQ(Counter(d, "H5D_ACCESS1_LENGTH_D1"), 100);
  EXPECT_EQ(Counter(d, "H5D_ACCESS1_COUNT"), 2);
  EXPECT_EQ(Counter(d, "H5D_USE_MPIIO_COLLECTIVE"), 1);
  EXPECT_EQ(Counter(d, "H5D_FASTEST_RANK"), 0);
  EXPECT_EQ(Counter(d, "H5D_FASTEST_RANK_BYTES"), 400);
  EXPECT_EQ(Counter(d, "H5D_SLOWEST_RANK"), 1);
  EXPECT_EQ(Counter(d, "H5D_MAX_WRITE_TIME_SIZE"), 400);
  EXPECT_NEAR(FCounter(d, "H5D_F_WRITE_TIME"), 4000e-6, 1e-12);
  EXPECT_NEAR(FCounter(d, "H5D_F_MAX_WRITE_TIME"), 3000e-6, 1e-12);
  EXPECT_NEAR(FCounter(d, "H5D_F_FASTEST_RANK_TIME"), 1000e-6, 1e-12);
  EXPECT_NEAR(FCounter(d, "H5D_F_SLOWEST_RANK_TIME"), 3000e-6, 1e-12);
  EXPECT_NEAR(FCounter(d, "H5D_F_VARIANCE_RANK_TIME"), 1e-6, 1e-15);  // (1 ms - 2 ms)^2 and (3 ms - 2 ms)^2, halved
  EXPECT_NEAR(FCounter(d, "H5D_F_VARIANCE_RANK_BYTES"), 0, 1e-9);
}

TEST(H5Darshan, TextHasDarshanParsersColumns) {
  const std::vector<DarshanRecord> records = DarshanRecords({Serial()});
  const std::string text = DarshanText(records);
  EXPECT_NE(text.find("#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>\n"),
            std::string::npos);
  const std::string id = std::to_string(records[1].id);
  EXPECT_NE(text.find("\nH5D\t0\t" + id + "\tH5D_BYTES_WRITTEN\t2056\t/data/f.h5:/grp/ds\t"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\nH5D\t0\t" + id + "\tH5D_F_WRITE_TIME\t0.004500\t/data/f.h5:/grp/ds\t"), std::string::npos);
  EXPECT_NE(text.find("\nH5D\t0\t" + id + "\tH5D_FILE_REC_ID\t" + std::to_string(records[0].id) + "\t"),
            std::string::npos);
  EXPECT_LT(text.find("\nH5F\t"), text.find("\nH5D\t"));
}

}  // namespace
}  // namespace fathom::h5prov
