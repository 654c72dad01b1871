// scan_sink.h — what the tree scanner hands its consumer: chunks of one directory's entries
// with their attributes, and the problems it met (unreadable directories, read errors).
//
// Contract: the scanner calls a ScanSink from ONE thread only (the thread running
// Scanner::Run()), never concurrently, so a sink need not be thread-safe and may write to a
// single-writer database directly. For every directory the scanner reads it delivers one or
// more chunks, the last one with `last` set; a directory's entry (in its parent's chunk)
// reaches the sink before any chunk of that directory, so `ScanEntry::dir_token` lets the
// sink relate a directory's chunks to the name that leads to it. Chunks of different
// directories interleave. A scan root's chunks have `parent_token` 0.
//
// Ownership: chunks are handed over by value (moved); the sink keeps what it wants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fathom/catalog.h"

namespace fathom::scan {

// One name found in a directory, with the attributes lstat(2) reports for it.
struct ScanEntry {
  std::string name;      // a single component, any bytes but '/' and NUL
  catalog::Attrs attrs;  // symlink targets included (never followed)
  // Non-zero when the entry is a directory the scan will read: the token its own chunks
  // carry as ScanChunk::dir_token. Zero for other entries and for directories the scan does
  // not enter (mount points without cross_devices).
  uint64_t dir_token = 0;
};

// A part of one directory's listing.
struct ScanChunk {
  std::string path;           // the directory's absolute path
  catalog::Attrs attrs;       // the directory's own attributes (fstat of the opened directory)
  uint64_t dir_token = 0;     // this directory (non-zero, unique within a scan)
  uint64_t parent_token = 0;  // the directory holding it; 0 for a scan root
  bool first = false;         // the first chunk of this directory
  bool last = false;          // no more chunks of this directory follow
  catalog::Observation observation;  // time_ns: taken before these entries were read
  std::vector<ScanEntry> entries;
};

// A directory or entry the scan could not read. Never fatal: the scan goes on.
struct ScanProblem {
  std::string path;     // what could not be read
  int error = 0;        // errno
  std::string message;  // "cannot read directory /a/b: Permission denied ..."
};

class ScanSink {
 public:
  virtual ~ScanSink() = default;
  virtual void OnChunk(ScanChunk&& chunk) = 0;
  virtual void OnProblem(ScanProblem&& problem) = 0;
};

}  // namespace fathom::scan
