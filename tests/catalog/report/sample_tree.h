// sample_tree.h — the tree the catalog query tests measure: sizes that make blocks differ
// from bytes (sparse files, a hole, real data), nested and empty directories, symlinks (one
// dangling), two hard links in one directory, awkward names (spaces, a newline, bytes that
// are not UTF-8), two owners besides root, files of known ages. Made with plain system
// calls; needs root for the owners. One thread.
#pragma once

#include <cstdint>
#include <string>

namespace fathom::testing {

inline constexpr uint32_t kSampleUserA = 4101;   // owns docs/
inline constexpr uint32_t kSampleGroupA = 4201;
inline constexpr uint32_t kSampleUserB = 4102;   // owns data/
inline constexpr uint32_t kSampleGroupB = 4202;

// The times every file gets: mtime `now - days * 86400` as listed in the .cpp, atime one day
// before its mtime; `now` is passed so that tests can work out ages.
void MakeSampleTree(const std::string& root, int64_t now_seconds);

}  // namespace fathom::testing
