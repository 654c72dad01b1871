// C programs against Debian's HDF5 under `fathom h5 run`: exactly the calls they make, with
// the right objects, names and bytes; failed calls recorded as failed with the program's error
// stack untouched; h5py's way of closing (H5Idec_ref) leaving nothing open; a hid_t handed out
// again naming the new dataset; a process that never loads HDF5 left alone; `fathom h5 report`
// of a known program.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "h5prov/h5_run.h"

namespace fathom::h5prov {
namespace {

using namespace testing;

std::vector<uint64_t> U(std::initializer_list<uint64_t> v) { return v; }

TEST(CCapture, KnownOperationsGiveExactlyTheirRecords) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "known.h5";
  auto run = RunTraced(dir / "traces", {Workload("known_ops"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& t = run.traces[0];
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_TRUE(t.ended);
  EXPECT_EQ(t.dropped, 0u);
  EXPECT_EQ(t.end_open_objects, 0u);
  EXPECT_EQ(t.process.hdf5_version, "1.10.8");
  EXPECT_EQ(t.process.flavour, "serial");
  EXPECT_EQ(t.process.job, "job");
  EXPECT_EQ(t.process.argv, (std::vector<std::string>{Workload("known_ops"), file}));

  EXPECT_EQ(OpNames(t), (std::vector<std::string>{"H5Fcreate", "H5Gcreate2", "H5Dcreate2", "H5Dwrite", "H5Acreate2",
                                                  "H5Awrite", "H5Aclose", "H5Dclose", "H5Gclose", "H5Fclose",
                                                  "H5Fopen", "H5Dopen2", "H5Dread", "H5Aopen", "H5Aread", "H5Aclose",
                                                  "H5Dclose", "H5Fclose"}));
  for (size_t i = 0; i < t.calls.size(); ++i) {
    const Call& c = t.calls[i];
    EXPECT_EQ(c.seq, i + 1);
    EXPECT_EQ(c.parent, 0u) << OpName(c.op);
    EXPECT_FALSE(c.failed) << OpName(c.op);
    if (i > 0) {
      EXPECT_GE(c.start, t.calls[i - 1].start + t.calls[i - 1].duration);
    }
  }

  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  const Object created_file = ObjectOf(t, t.calls[0].object);
  EXPECT_EQ(created_file.kind, "file");
  EXPECT_EQ(created_file.path, file);
  EXPECT_EQ(created_file.dev, st.st_dev);
  EXPECT_EQ(created_file.ino, st.st_ino);
  EXPECT_EQ(t.calls[0].name, file);

  const Object group = ObjectOf(t, t.calls[1].object);
  EXPECT_EQ(group.kind, "group");
  EXPECT_EQ(group.path, "/grp");
  EXPECT_EQ(group.file, created_file.id);
  EXPECT_EQ(t.calls[1].location, created_file.id);
  EXPECT_EQ(t.calls[1].name, "grp");

  const Object dataset = ObjectOf(t, t.calls[2].object);
  EXPECT_EQ(dataset.kind, "dataset");
  EXPECT_EQ(dataset.path, "/grp/data");
  EXPECT_EQ(dataset.file, created_file.id);
  EXPECT_EQ(dataset.type_size, 4u);
  EXPECT_EQ(dataset.dims, U({6, 8}));
  EXPECT_EQ(dataset.layout, "contiguous");
  EXPECT_EQ(t.calls[2].location, group.id);
  EXPECT_EQ(t.calls[2].name, "data");

  // The 2×3 hyperslab at (1, 2): 6 ints.
  const Call& write = t.calls[3];
  EXPECT_EQ(write.object, dataset.id);
  EXPECT_EQ(write.mem_bytes, 24u);
  EXPECT_EQ(write.file_bytes, 24u);
  EXPECT_EQ(write.selection.kind, "regular");
  EXPECT_EQ(write.selection.points, 6u);
  EXPECT_EQ(write.selection.start, U({1, 2}));
  EXPECT_EQ(write.selection.stride, U({1, 1}));
  EXPECT_EQ(write.selection.count, U({2, 3}));
  EXPECT_EQ(write.selection.block, U({1, 1}));
  EXPECT_EQ(write.transfer, "");  // serial HDF5 has no MPI transfer mode

  const Object attribute = ObjectOf(t, t.calls[4].object);
  EXPECT_EQ(attribute.kind, "attribute");
  EXPECT_EQ(attribute.path, "/grp/data");
  EXPECT_EQ(attribute.name, "scale");
  EXPECT_EQ(attribute.type_size, 8u);
  EXPECT_EQ(attribute.dims, U({4}));
  EXPECT_EQ(t.calls[4].location, dataset.id);
  EXPECT_EQ(t.calls[4].name2, "scale");
  EXPECT_EQ(t.calls[5].object, attribute.id);
  EXPECT_EQ(t.calls[5].mem_bytes, 32u);
  EXPECT_EQ(t.calls[5].file_bytes, 32u);
  EXPECT_EQ(t.calls[5].selection.kind, "all");

  // Read back after the file is opened again: new objects, the whole 6×8 extent.
  const Object reopened = ObjectOf(t, t.calls[10].object);
  EXPECT_EQ(reopened.kind, "file");
  EXPECT_NE(reopened.id, created_file.id);
  EXPECT_EQ(reopened.ino, st.st_ino);
  const Object dataset2 = ObjectOf(t, t.calls[11].object);
  EXPECT_EQ(dataset2.path, "/grp/data");
  EXPECT_EQ(dataset2.file, reopened.id);
  EXPECT_EQ(t.calls[11].name, "/grp/data");
  const Call& read = t.calls[12];
  EXPECT_EQ(read.object, dataset2.id);
  EXPECT_EQ(read.mem_bytes, 192u);
  EXPECT_EQ(read.file_bytes, 192u);
  EXPECT_EQ(read.selection.kind, "all");
  EXPECT_EQ(read.selection.points, 48u);
  EXPECT_EQ(ObjectOf(t, t.calls[13].object).name, "scale");
  EXPECT_EQ(t.calls[14].mem_bytes, 32u);

  // What each object counted, written when it closed.
  ASSERT_EQ(t.closed.size(), 7u);
  const Closed dataset_closed = ClosedOf(t, dataset.id);
  EXPECT_EQ(dataset_closed.how, "close");
  EXPECT_EQ(dataset_closed.writes, 1u);
  EXPECT_EQ(dataset_closed.reads, 0u);
  EXPECT_EQ(dataset_closed.write_mem_bytes, 24u);
  EXPECT_EQ(dataset_closed.write_file_bytes, 24u);
  EXPECT_EQ(dataset_closed.write_ns, write.duration);
  EXPECT_EQ(dataset_closed.stored_size, 192);
  EXPECT_EQ(dataset_closed.dims, U({6, 8}));
  const Closed dataset2_closed = ClosedOf(t, dataset2.id);
  EXPECT_EQ(dataset2_closed.reads, 1u);
  EXPECT_EQ(dataset2_closed.read_file_bytes, 192u);
  EXPECT_EQ(ClosedOf(t, attribute.id).write_file_bytes, 32u);
  for (const Closed& c : t.closed) EXPECT_EQ(c.how, "close");
}

// The output of error_stack with HDF5's "thread N" (its id differs from run to run) left out.
std::string WithoutThreadIds(const std::string& text) {
  return std::regex_replace(text, std::regex("thread [0-9]+"), "thread N");
}

TEST(CCapture, TheReportOfKnownOperationsCountsEachFunctionAndTheDatasetsBytes) {
  fathom::testing::TempDir dir;
  const std::string file = dir / "known.h5";
  auto run = RunTraced(dir / "traces", {Workload("known_ops"), file});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto report = fathom::testing::Run({fathom::testing::FathomBinary(), "h5", "report", "--json", dir / "traces/job"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto j = nlohmann::json::parse(report.out);
  EXPECT_EQ(j["processes"], 1);
  EXPECT_EQ(j["calls"], 18);
  std::map<std::string, int> counts;
  for (const auto& f : j["functions"]) counts[f["function"]] = f["count"];
  EXPECT_EQ(counts, (std::map<std::string, int>{{"H5Acreate2", 1}, {"H5Aclose", 2}, {"H5Aopen", 1}, {"H5Aread", 1},
                                                {"H5Awrite", 1}, {"H5Dclose", 2}, {"H5Dcreate2", 1}, {"H5Dopen2", 1},
                                                {"H5Dread", 1}, {"H5Dwrite", 1}, {"H5Fclose", 2}, {"H5Fcreate", 1},
                                                {"H5Fopen", 1}, {"H5Gclose", 1}, {"H5Gcreate2", 1}}));
  ASSERT_EQ(j["datasets"].size(), 1u);
  const auto& d = j["datasets"][0];
  EXPECT_EQ(d["file"], std::filesystem::canonical(file).string());
  EXPECT_EQ(d["path"], "/grp/data");
  EXPECT_EQ(d["writes"], 1);
  EXPECT_EQ(d["write_bytes"], 24);
  EXPECT_EQ(d["reads"], 1);
  EXPECT_EQ(d["read_bytes"], 192);
  EXPECT_EQ(d["switches"], 1);
}

TEST(CCapture, FailedCallsAreRecordedAndTheProgramSeesTheSameErrorStack) {
  fathom::testing::TempDir dir;
  auto plain = fathom::testing::Run({Workload("error_stack"), dir / "plain.h5"});
  auto traced = fathom::testing::Run({"/usr/bin/env", "LD_PRELOAD=" + TracerLibrary(), "FATHOM_H5=1",
                                      "FATHOM_H5_DIR=" + (dir / "traces"), Workload("error_stack"), dir / "plain.h5"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_NE(plain.out.find("H5Dopen2=-1 errors="), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("errors=0"), std::string::npos) << plain.out;  // both failures left records
  EXPECT_NE(plain.err.find("HDF5-DIAG"), std::string::npos) << plain.err;
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_EQ(WithoutThreadIds(traced.err), WithoutThreadIds(plain.err));

  auto traces = ReadTraces(dir / "traces");
  ASSERT_EQ(traces.size(), 1u);
  const Trace& t = traces[0];
  EXPECT_EQ(OpNames(t), (std::vector<std::string>{"H5Fcreate", "H5Dopen2", "H5Dwrite", "H5Fclose"}));
  const Call& open = t.calls[1];
  EXPECT_TRUE(open.failed);
  EXPECT_EQ(open.result, -1);
  EXPECT_EQ(open.object, 0u);
  EXPECT_EQ(open.location, t.calls[0].object);
  EXPECT_EQ(open.name, "missing");
  EXPECT_TRUE(t.calls[2].failed);
  EXPECT_EQ(t.calls[2].result, -1);
  EXPECT_EQ(t.calls[2].object, 0u);  // 12345 is no object
  EXPECT_FALSE(t.calls[3].failed);
}

TEST(CCapture, TenThousandOpenAndDecRefCyclesLeaveNothingOpen) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("open_close_cycles"), dir / "cycles.h5", "10000"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& t = run.traces[0];
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_EQ(t.dropped, 0u);
  EXPECT_EQ(t.end_open_objects, 0u);
  const std::vector<Call> opens = CallsOf(t, "H5Oopen");
  const std::vector<Call> releases = CallsOf(t, "H5Idec_ref");
  ASSERT_EQ(opens.size(), 10000u);
  ASSERT_EQ(releases.size(), 10000u);
  // 1 file + the created dataset + 10,000 opens: each its own object, each closed once.
  EXPECT_EQ(t.objects.size(), 10002u);
  EXPECT_EQ(t.closed.size(), 10002u);
  std::map<uint64_t, int> closes;
  for (const Closed& c : t.closed) ++closes[c.id];
  for (size_t i = 0; i < opens.size(); ++i) {
    const Object& o = ObjectOf(t, opens[i].object);
    ASSERT_EQ(o.kind, "dataset");
    ASSERT_EQ(o.path, "/d");
    ASSERT_EQ(releases[i].object, o.id);
    ASSERT_EQ(releases[i].result, 0);
    ASSERT_EQ(closes[o.id], 1);
    ASSERT_EQ(ClosedOf(t, o.id).how, "dec_ref");
  }
}

TEST(CCapture, RecycledHidIsAttributedToTheDatasetOpenedUnderItLast) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("recycled_hid"), dir / "recycled.h5"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& t = run.traces[0];
  const std::vector<Call> opens = CallsOf(t, "H5Dopen2");
  ASSERT_EQ(opens.size(), 2u);
  ASSERT_EQ(opens[0].result, opens[1].result);  // the same hid_t value twice
  EXPECT_EQ(run.result.out, "a=" + std::to_string(opens[0].result) + " b=" + std::to_string(opens[0].result) + "\n");
  const Object a = ObjectOf(t, opens[0].object);
  const Object b = ObjectOf(t, opens[1].object);
  EXPECT_EQ(a.path, "/a");
  EXPECT_EQ(b.path, "/b");
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(a.dims, U({4}));
  EXPECT_EQ(b.dims, U({8}));
  const std::vector<Call> reads = CallsOf(t, "H5Dread");
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].object, b.id);
  EXPECT_EQ(reads[0].file_bytes, 32u);  // b's 8 ints, not a's 4
  // "a" was freed by H5close() without a close call: closed when its hid_t came back.
  EXPECT_EQ(ClosedOf(t, a.id).how, "unseen");
  EXPECT_EQ(ClosedOf(t, a.id).reads, 0u);
  EXPECT_EQ(ClosedOf(t, b.id).how, "close");
  EXPECT_EQ(ClosedOf(t, b.id).reads, 1u);
}

TEST(CCapture, ObjectsOpenUnderAMovedLinkTakeTheirNewPaths) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("moved_link"), dir / "moved.h5"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  // HDF5 1.10's own name for the open dataset is still the old one; the trace's is the new one.
  EXPECT_EQ(run.result.out, "/grp/ds\n");
  ASSERT_EQ(run.traces.size(), 1u);
  const Trace& t = run.traces[0];
  ASSERT_TRUE(t.problems.empty()) << t.problems[0];
  const std::vector<Call> moves = CallsOf(t, "H5Lmove");
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].name, "grp");
  EXPECT_EQ(moves[0].name2, "moved");
  const std::vector<Call> groups = CallsOf(t, "H5Gcreate2");
  const std::vector<Call> datasets = CallsOf(t, "H5Dcreate2");
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(datasets.size(), 2u);
  EXPECT_EQ(ObjectOf(t, groups[0].object).path, "/moved");
  EXPECT_EQ(ObjectOf(t, datasets[0].object).path, "/grp/closed");
  EXPECT_EQ(ObjectOf(t, datasets[1].object).path, "/moved/ds");
  const std::vector<Call> writes = CallsOf(t, "H5Dwrite");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].object, datasets[1].object);
  EXPECT_EQ(writes[0].file_bytes, 16u);
  // The file keeps its path; an object closed before the move keeps its own.
  EXPECT_EQ(ObjectOf(t, CallsOf(t, "H5Fcreate")[0].object).path, dir / "moved.h5");
}

TEST(CCapture, ParallelHdf5RecordsEachRankAndItsTransferModes) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                                        Workload("mpi_rows"), dir / "rows.h5"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 2u);  // one per rank; mpirun itself never calls HDF5
  std::map<int64_t, const Trace*> by_rank;
  for (const Trace& t : run.traces) by_rank[t.process.rank] = &t;
  ASSERT_EQ(by_rank.size(), 2u);
  for (int64_t rank : {0, 1}) {
    ASSERT_TRUE(by_rank.count(rank)) << rank;
    const Trace& t = *by_rank[rank];
    EXPECT_EQ(t.process.flavour, "openmpi");
    EXPECT_EQ(t.process.hdf5_version, "1.10.8");
    EXPECT_EQ(t.end_open_objects, 0u);
    const std::vector<Call> writes = CallsOf(t, "H5Dwrite");
    ASSERT_EQ(writes.size(), 1u);
    EXPECT_EQ(writes[0].transfer, "collective");
    EXPECT_EQ(writes[0].file_bytes, 16u);
    EXPECT_EQ(writes[0].selection.start, U({static_cast<uint64_t>(rank), 0}));
    EXPECT_EQ(writes[0].selection.count, U({1, 4}));
    EXPECT_EQ(ObjectOf(t, writes[0].object).path, "/rows");
  }
  EXPECT_EQ(OpNames(*by_rank[0]), (std::vector<std::string>{"H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Dread",
                                                            "H5Dclose", "H5Fclose"}));
  EXPECT_EQ(OpNames(*by_rank[1]),
            (std::vector<std::string>{"H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Dclose", "H5Fclose"}));
  const Call read = CallsOf(*by_rank[0], "H5Dread").at(0);
  EXPECT_EQ(read.transfer, "independent");  // H5P_DEFAULT
  EXPECT_EQ(read.file_bytes, 32u);          // the whole 2×4 extent
}

TEST(CCapture, ForkedChildWritesItsOwnTraceEvenWhenItEndsWithUnderscoreExit) {
  fathom::testing::TempDir dir;
  auto run = RunTraced(dir / "traces", {Workload("fork_child"), dir / "parent.h5", dir / "child.h5"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  ASSERT_EQ(run.traces.size(), 2u);
  const Trace& parent = run.traces[0].process.ppid == run.traces[1].process.pid ? run.traces[1] : run.traces[0];
  const Trace& child = &parent == &run.traces[0] ? run.traces[1] : run.traces[0];
  EXPECT_EQ(child.process.ppid, parent.process.pid);
  const std::vector<std::string> one_file = {"H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Dclose", "H5Fclose"};
  EXPECT_EQ(OpNames(parent), one_file);
  EXPECT_EQ(OpNames(child), one_file);
  EXPECT_EQ(child.calls[0].name, dir / "child.h5");
  EXPECT_EQ(ObjectOf(child, child.calls[0].object).path, dir / "child.h5");
  EXPECT_EQ(child.calls[2].file_bytes, 4u);
  EXPECT_TRUE(parent.ended);
  EXPECT_TRUE(child.ended);  // written before _exit
  EXPECT_TRUE(child.problems.empty()) << child.problems.front();
}

TEST(CCapture, ShellWithTheTracerPreloadedNeitherLoadsHdf5NorFails) {
  fathom::testing::TempDir dir;
  auto run = fathom::testing::Run({"/usr/bin/env", "LD_PRELOAD=" + TracerLibrary(), "FATHOM_H5=1",
                                   "FATHOM_H5_DIR=" + (dir / "traces"), "/bin/sh", "-c",
                                   "cat /proc/$$/maps && echo done"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_NE(run.out.find("libfathom-h5.so"), std::string::npos);  // it was preloaded
  EXPECT_EQ(run.out.find("libhdf5"), std::string::npos);
  EXPECT_NE(run.out.find("\ndone\n"), std::string::npos);
  struct stat st;
  EXPECT_NE(::stat((dir / "traces").c_str(), &st), 0);  // nothing written: it never called HDF5
}

TEST(CCapture, AStaticallyLinkedProgramIsRefusedNamingTheHdf5Tracer) {
  fathom::testing::TempDir dir;
  const std::string program = std::string(FATHOM_BUILD_DIR) + "/tests/io-workloads/static_program";
  const auto run = fathom::testing::Run(
      {fathom::testing::FathomBinary(), "h5", "run", "--out", dir / "traces", "--", program});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "fathom h5 run: " + program +
                                " is statically linked: a static program does not load "
                                "libfathom-h5.so (LD_PRELOAD), so it cannot be traced; link it "
                         "dynamically to trace it\n");
  struct stat st;
  EXPECT_NE(::stat((dir / "traces").c_str(), &st), 0);  // nothing ran, nothing was written
}

}  // namespace
}  // namespace fathom::h5prov
