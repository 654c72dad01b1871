// The two LD_PRELOAD tracers built on the same runtime (src/preload_runtime/): each exports only
// the functions it wraps, and both preloaded into one HDF5 program each record what is theirs
// (the POSIX tracer the HDF5 file's bytes, the HDF5 tracer the calls) and neither records the
// other's trace files.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fathom/h5prov.h"
#include "fathom/iotrace.h"
#include "h5_run.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace {



std::string IoTracer() { return std::string(FATHOM_BUILD_DIR) + "/lib/fathom/libfathom-io.so"; }

// The dynamic symbols `library` defines, by `nm -D --defined-only`.
std::set<std::string> Exports(const std::string& library) {
  auto nm = fathom::testing::Run({"nm", "-D", "--defined-only", "--format=just-symbols", library});
  EXPECT_EQ(nm.exit_code, 0) << nm.err;
  std::set<std::string> names;
  std::istringstream lines(nm.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) names.insert(line);
  }
  return names;
}

void ExpectOnlyWrappers(const std::string& library, const std::vector<std::string>& wrappers) {
  const std::set<std::string> names = Exports(library);
  for (const std::string& name : names) {
    EXPECT_NE(name.rfind("_Z", 0), 0u) << library << " exports its C++ inside " << name;
  }
  for (const std::string& wrapper : wrappers) EXPECT_TRUE(names.count(wrapper)) << library << " lacks " << wrapper;
}

TEST(TracersTogether, EachTracerExportsOnlyTheFunctionsItWraps) {
  ExpectOnlyWrappers(IoTracer(), {"open", "read", "write", "close", "fopen", "fwrite", "stat", "unlink", "execve",
                                  "_exit", "MPI_File_write_at_all"});
  ExpectOnlyWrappers(fathom::h5prov::testing::TracerLibrary(),
                     {"H5Fcreate", "H5Dwrite", "H5Dread", "H5Idec_ref", "H5Lmove", "_exit", "execve"});
}

TEST(TracersTogether, BothPreloadedRecordTheirOwnLayerAndNotEachOthersFiles) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "known.h5";
  const std::string io_dir = dir / "io";
  const std::string h5_dir = dir / "h5";
  auto run = fathom::testing::Run({"env", "LD_PRELOAD=" + IoTracer() + ":" + fathom::h5prov::testing::TracerLibrary(), "FATHOM_IO=1",
                  "FATHOM_IO_DIR=" + io_dir, "FATHOM_H5=1", "FATHOM_H5_DIR=" + h5_dir, "FATHOM_JOB_ID=job",
                  fathom::h5prov::testing::Workload("known_ops"), file});
  ASSERT_EQ(run.exit_code, 0) << run.err;

  // The HDF5 layer: the same 18 calls as under the HDF5 tracer alone.
  const std::vector<fathom::h5prov::Trace> h5 = fathom::h5prov::testing::ReadTraces(h5_dir);
  ASSERT_EQ(h5.size(), 1u);
  EXPECT_TRUE(h5[0].problems.empty()) << h5[0].problems.front();
  EXPECT_TRUE(h5[0].ended);
  EXPECT_EQ(h5[0].calls.size(), 18u);
  EXPECT_EQ(fathom::h5prov::testing::CallsOf(h5[0], "H5Dwrite").size(), 1u);

  // The POSIX layer below it: HDF5's own opens and writes of the file, and nothing of the
  // HDF5 tracer's trace (written by system calls).
  auto io_files = fathom::iotrace::FindTraceFiles(io_dir);
  ASSERT_TRUE(io_files.ok()) << io_files.status().message();
  ASSERT_EQ(io_files->size(), 1u);
  auto io = fathom::iotrace::ReadTrace(io_files->front());
  ASSERT_TRUE(io.ok()) << io.status().message();
  EXPECT_TRUE(io->problems.empty()) << io->problems.front();
  uint64_t written_to_file = 0;
  for (const fathom::iotrace::Operation& o : fathom::iotrace::Expand(*io)) {
    const std::string path = io->objects.count(o.target) ? io->objects.at(o.target).path : "";
    EXPECT_EQ(path.rfind(h5_dir, 0), std::string::npos) << "the POSIX tracer recorded the HDF5 tracer's " << path;
    if (path == file && fathom::iotrace::OpName(o.op).find("write") != std::string::npos && o.result > 0) {
      written_to_file += static_cast<uint64_t>(o.result);
    }
  }
  EXPECT_GT(written_to_file, 0u);
}

}  // namespace
