// Debian's h5py 3.7 under `fathom h5 run`. Python loads libhdf5 privately (RTLD_LOCAL), h5py
// opens objects with H5Oopen and closes everything with H5Idec_ref, never H5*close: the trace
// still names every object, counts the bytes of each access and closes each object once.
#include <gtest/gtest.h>

#include "h5prov/h5_run.h"

namespace fathom::h5prov {
namespace {

using namespace testing;

// A group, an i4 dataset of 1000 elements with a float64 attribute, 100 float64 zeros written
// into elements 100..199 (converted to i4), then everything read back.
constexpr const char* kScript = R"(
import sys, h5py, numpy
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_group("grp").create_dataset("data", (1000,), dtype="i4")
    d.attrs["units"] = numpy.float64(2.5)
    d[100:200] = numpy.zeros(100, dtype="f8")
with h5py.File(sys.argv[1], "r") as f:
    d = f["grp/data"]
    assert list(d[10:20]) == [0] * 10 and d.attrs["units"] == 2.5
)";

TEST(PythonCapture, H5pyOpensWithOopenAndClosesWithDecRef) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "py.h5";
  // Debian's interpreter, which python3-h5py is installed for (scripts/install-deps.sh).
  auto run = RunTraced(dir / "traces", {"/usr/bin/python3", "-c", kScript, file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& t = run.traces[0];
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_EQ(t.dropped, 0u);
  EXPECT_EQ(t.end_open_objects, 0u);
  EXPECT_EQ(t.process.hdf5_version, "1.10.8");

  EXPECT_EQ(OpNames(t), (std::vector<std::string>{
                            "H5Fcreate", "H5Gcreate2", "H5Dcreate2", "H5Idec_ref",  // the group
                            "H5Acreate_by_name", "H5Awrite", "H5Idec_ref",           // the attribute
                            "H5Dwrite", "H5Idec_ref", "H5Idec_ref",                  // the dataset, the file
                            "H5Fopen", "H5Oopen", "H5Idec_ref", "H5Dread", "H5Aopen_by_name", "H5Aread",
                            "H5Idec_ref", "H5Idec_ref", "H5Idec_ref"}));
  for (const Call& c : t.calls) {
    EXPECT_FALSE(c.failed) << OpName(c.op);
    EXPECT_EQ(c.parent, 0u) << OpName(c.op);
  }

  const Object dataset = ObjectOf(t, t.calls[2].object);
  EXPECT_EQ(dataset.path, "/grp/data");
  EXPECT_EQ(dataset.type_size, 4u);
  EXPECT_EQ(dataset.dims, std::vector<uint64_t>{1000});
  EXPECT_EQ(t.calls[3].object, t.calls[1].object);
  EXPECT_GE(ClosedOf(t, t.calls[1].object).end, t.calls[3].start + t.calls[3].duration);
  const Object attribute = ObjectOf(t, t.calls[4].object);
  EXPECT_EQ(attribute.kind, "attribute");
  EXPECT_EQ(attribute.path, "/grp/data");
  EXPECT_EQ(attribute.name, "units");
  EXPECT_EQ(t.calls[4].name, ".");
  EXPECT_EQ(t.calls[4].name2, "units");
  EXPECT_EQ(t.calls[5].mem_bytes, 8u);

  // d[100:200] = zeros(f8): 100 doubles in memory, 100 int32 in the file.
  const Call& write = t.calls[7];
  EXPECT_EQ(write.object, dataset.id);
  EXPECT_EQ(write.mem_bytes, 800u);
  EXPECT_EQ(write.file_bytes, 400u);
  EXPECT_EQ(write.selection.kind, "regular");
  EXPECT_EQ(write.selection.start, std::vector<uint64_t>{100});
  EXPECT_EQ(write.selection.count, std::vector<uint64_t>{100});

  // f["grp/data"] is an H5Oopen; its reads count on what it opened.
  const Call& open = t.calls[11];
  EXPECT_EQ(open.name, "grp/data");
  const Object opened = ObjectOf(t, open.object);
  EXPECT_EQ(opened.kind, "dataset");
  EXPECT_EQ(opened.path, "/grp/data");
  EXPECT_EQ(t.calls[13].object, opened.id);
  EXPECT_EQ(t.calls[13].mem_bytes, 40u);
  EXPECT_EQ(t.calls[13].selection.start, std::vector<uint64_t>{10});

  // Every object h5py opened was closed by H5Idec_ref, once.
  EXPECT_EQ(t.objects.size(), 7u);
  ASSERT_EQ(t.closed.size(), 7u);
  for (const Closed& c : t.closed) EXPECT_EQ(c.how, "dec_ref") << ObjectOf(t, c.id).path;
  EXPECT_EQ(ClosedOf(t, dataset.id).write_mem_bytes, 800u);
  EXPECT_EQ(ClosedOf(t, dataset.id).write_file_bytes, 400u);
  EXPECT_EQ(ClosedOf(t, dataset.id).stored_size, 4000);
  EXPECT_EQ(ClosedOf(t, opened.id).reads, 1u);
  EXPECT_EQ(ClosedOf(t, opened.id).read_file_bytes, 40u);
}

}  // namespace
}  // namespace fathom::h5prov
