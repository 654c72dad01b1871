// h5py's own test suite, as Debian's python3-h5py ships it, run by pytest (python3-pytest)
// without capture and under `fathom h5 run`: every test has the same outcome both times, and
// the traces of the captured run read back without damage and hold the suite's HDF5 calls.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "h5prov/h5_run.h"

namespace fathom::h5prov {
namespace {

using namespace testing;

// Where Debian's python3-h5py keeps its tests (h5py itself picks the serial or MPI build).
constexpr const char* kSuite = "/usr/lib/python3/dist-packages/h5py/_debian_h5py_serial/tests";

// The modules that make files, groups, datasets and attributes through h5py's high-level and
// low-level APIs: file modes, drivers, user blocks and closing (test_file, test_file2, test_h5f);
// groups, links, soft, external and hard links, copies and moves (test_group); datasets of every
// layout, resizing, chunked and filtered storage, fill values, direct chunk I/O and
// fancy selections (test_dataset, test_dataset_getitem, test_h5d_direct_chunk); attributes,
// created, read, renamed and deleted (test_attrs, test_attrs_data, test_attribute_create); and
// opening by H5Oopen and closing by H5Idec_ref (test_h5o, test_objects). Between them they make
// every kind of call the tracer wraps. The rest of the suite (type conversion, dimension
// scales, virtual datasets, file images, completions) adds little HDF5 I/O for its time: these
// 514 tests take 4.7 s of the whole suite's 11 s here without capture, so that both runs stay
// well within a minute on a busy machine.
const std::vector<std::string> kModules = {
    "test_file.py",   "test_file2.py",         "test_h5f.py",    "test_group.py",
    "test_dataset.py", "test_dataset_getitem.py", "test_h5d_direct_chunk.py", "test_attrs.py",
    "test_attrs_data.py", "test_attribute_create.py", "test_h5o.py", "test_objects.py"};

struct SuiteRun {
  fathom::testing::RunResult result;
  std::map<std::string, std::string> outcomes;  // test (module::class::name) → its outcomes
  std::string summary;                          // "2 failed, 340 passed, ..." without the time
};

// pytest -v prints a line per test phase that has an outcome: "PATH::Class::test PASSED [ 5%]";
// a test whose teardown fails has a second line (ERROR).
SuiteRun Parse(fathom::testing::RunResult result) {
  SuiteRun run;
  for (const std::string& line : fathom::testing::Lines(result.out)) {
    const size_t space = line.find(' ');
    const std::string first = line.substr(0, space);
    if (first.find("::") != std::string::npos && space != std::string::npos) {
      const std::string test = first.substr(first.rfind('/', first.find("::")) + 1);  // npos + 1: all of it
      std::string& outcome = run.outcomes[test];
      outcome += (outcome.empty() ? "" : " ") + line.substr(space + 1, line.find(' ', space + 1) - space - 1);
    } else if (line.starts_with("=") && line.find(" passed") != std::string::npos) {
      const size_t from = line.find_first_not_of("= ");
      run.summary = line.substr(from, line.rfind(" in ") - from);
    }
  }
  run.result = std::move(result);
  return run;
}

std::vector<std::string> Pytest(const std::string& tmp) {
  std::vector<std::string> argv = {"/usr/bin/env", "TMPDIR=" + tmp, "/usr/bin/python3", "-m", "pytest", "-v",
                                   "-p", "no:cacheprovider", "--color=no", "-W", "ignore"};
  for (const std::string& module : kModules) argv.push_back(std::string(kSuite) + "/" + module);
  return argv;
}

TEST(H5pySuite, SameOutcomeOfEveryTestWithAndWithoutCapture) {
  struct stat st;
  ASSERT_EQ(::stat(kSuite, &st), 0) << kSuite << ": python3-h5py's tests are missing";
  fathom::testing::TempDir dir;
  const auto probe = fathom::testing::Run({"/usr/bin/python3", "-c", "import pytest"});
  ASSERT_EQ(probe.exit_code, 0) << "pytest is missing: install python3-pytest (scripts/install-deps.sh)";

  std::filesystem::create_directories(dir / "plain-tmp");
  std::filesystem::create_directories(dir / "traced-tmp");
  const SuiteRun plain = Parse(fathom::testing::Run(Pytest(dir / "plain-tmp"), std::chrono::seconds(120)));
  TracedRun traced_run = RunTraced(dir / "traces", Pytest(dir / "traced-tmp"));
  const SuiteRun traced = Parse(traced_run.result);

  // Debian's suite run as root has failures of its own (ros3 needs the network, a file made
  // read-only is still appendable by root, the MPI fixtures are absent): pytest exits 1 both
  // times, and what matters is that capture changes no outcome.
  EXPECT_EQ(traced.result.exit_code, plain.result.exit_code) << traced.result.err;
  ASSERT_GT(plain.outcomes.size(), 300u) << plain.result.out << plain.result.err;
  EXPECT_NE(plain.summary, "");
  EXPECT_EQ(traced.summary, plain.summary);
  EXPECT_EQ(traced.outcomes, plain.outcomes);

  // The traces: every process of the suite that called HDF5, readable and whole, holding the
  // suite's calls on files, groups, datasets and attributes, h5py's opens and closes.
  ASSERT_FALSE(traced_run.traces.empty());
  std::map<std::string, uint64_t> calls;
  uint64_t total = 0;
  for (const Trace& t : traced_run.traces) {
    EXPECT_TRUE(t.problems.empty()) << t.file << ": " << t.problems.front();
    EXPECT_TRUE(t.ended) << t.file;
    EXPECT_EQ(t.dropped, 0u) << t.file;
    for (const Call& c : t.calls) ++calls[OpName(c.op)];
    total += t.calls.size();
  }
  EXPECT_GT(total, 5'000u);  // 9,077 here
  for (const char* function : {"H5Fcreate", "H5Fopen", "H5Fflush", "H5Gcreate2", "H5Dcreate2", "H5Dcreate_anon",
                               "H5Dwrite", "H5Dread", "H5Dset_extent", "H5Dread_chunk", "H5DOwrite_chunk",
                               "H5Acreate_by_name", "H5Awrite", "H5Aread", "H5Adelete_by_name", "H5Oopen", "H5Olink",
                               "H5Ocopy", "H5Lcreate_soft", "H5Lcreate_external", "H5Lmove", "H5Idec_ref"}) {
    EXPECT_GT(calls[function], 0u) << function;
  }
}

}  // namespace
}  // namespace fathom::h5prov
