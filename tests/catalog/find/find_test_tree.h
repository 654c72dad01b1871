// find_test_tree.h — what the find engine's tests share: a tmpfs mounted with noatime (so
// that listing directories does not move their access times between two runs), a generator
// of varied trees (awkward names, every file type but devices, hard links, sparse files,
// several owners and modes, times at chosen ages and exact instants), and a runner that
// captures a program's output byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::catalog::find_testing {

// A tmpfs (noatime) mounted on a fresh directory, unmounted and removed on destruction.
class ScratchMount {
 public:
  ScratchMount();
  ~ScratchMount();
  ScratchMount(const ScratchMount&) = delete;
  ScratchMount& operator=(const ScratchMount&) = delete;
  const std::string& path() const { return path_; }
  bool mounted() const { return mounted_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

// The access and modification times given to one name; `follows_now` marks the ones placed
// relative to the moment the tree was built (ages), which ShiftAges moves.
struct PlacedTimes {
  std::string rel;
  int64_t sec[2] = {0, 0};  // atime, mtime
  long nsec[2] = {0, 0};
  bool follows_now[2] = {false, false};
};

struct GeneratedTree {
  std::vector<std::string> files;     // regular files, relative to the parent of the root
  std::vector<std::string> dirs;
  std::vector<std::string> links;     // symbolic links
  std::vector<PlacedTimes> times;
};

// Builds a tree at `root` (which must not exist) from `seed`; times are placed relative to
// `now_s` (ages in days and minutes with margins of at least 15 s from every boundary,
// local midnights for -daystart) and at fixed instants around 2024-01-01 00:00 local.
GeneratedTree BuildTree(const std::string& root, uint64_t seed, int64_t now_s);

// Moves every age of `tree` (built under `parent`) `delta_s` seconds later, so that a test
// running longer than the margins keeps its ages on the same side of every boundary;
// exact instants and local midnights stay where they are. Updates `tree`.
void ShiftAges(const std::string& parent, GeneratedTree& tree, int64_t delta_s);

struct Captured {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs argv in `cwd` with LC_ALL=C, stdin from /dev/null.
Captured RunCaptured(const std::vector<std::string>& argv, const std::string& cwd);

// The records of `out` split at `sep` (a last one without `sep` included), sorted.
std::vector<std::string> SortedRecords(const std::string& out, char sep = '\n');

// argv as a shell-like line with C escapes, for failure messages.
std::string Describe(const std::vector<std::string>& argv);

}  // namespace fathom::catalog::find_testing
