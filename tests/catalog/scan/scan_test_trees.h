// scan_test_trees.h — what the scanner tests share: a generated tree meant to trip a
// scanner, a way to run a program and read its NUL-separated records, and a sink that keeps
// everything it is given.
#pragma once

#include <string>
#include <vector>

#include "catalog/scan/scan_sink.h"

namespace fathom::testing {

// Builds below the existing directory `root`: names with newlines, tabs, spaces, leading
// dashes and non-UTF-8 bytes, a 255-byte name, symbolic links (to a file, to a directory,
// dangling, with a newline in the target), hard links within and across directories, empty
// directories, a FIFO, a 40-level chain of directories and a directory of 300 files.
void MakeAwkwardTree(const std::string& root);

// Runs `argv` with stdout into a file and stderr into another; returns the exit code and
// sets `out` to the NUL-terminated records of stdout, sorted, and `err` to stderr.
int RunRecords(const std::vector<std::string>& argv, const std::string& scratch_dir,
               std::vector<std::string>& out, std::string& err);

// The printf format that makes GNU find print what scan_print prints.
inline constexpr const char* kFindFormat = "%p\\t%i\\t%s\\t%m\\t%U\\t%G\\t%n\\t%T@\\t%D\\t%l\\0";

// Path of the scan_print test program.
std::string ScanPrintBinary();

// Keeps every chunk and problem, in the order the scanner delivered them.
class CollectingSink : public scan::ScanSink {
 public:
  void OnChunk(scan::ScanChunk&& chunk) override { chunks.push_back(std::move(chunk)); }
  void OnProblem(scan::ScanProblem&& problem) override { problems.push_back(std::move(problem)); }

  std::vector<scan::ScanChunk> chunks;
  std::vector<scan::ScanProblem> problems;
};

}  // namespace fathom::testing
