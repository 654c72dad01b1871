// trace_files.h — reading a tracer's files whole and finding them under a directory (the I/O
// and HDF5 traces, the job files). Pure functions; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom {

// The bytes of `path`; errors say "cannot open the <what> <path>" or "cannot read ...".
Result<std::string> ReadWholeFile(const std::string& path, const std::string& what);

// Bytes [begin, end) of the trace file `path`, which only grows: a file shorter than `end` is an
// error saying so.
Result<std::string> ReadTraceRange(const std::string& path, uint64_t begin, uint64_t end);

// `path` itself when it is not a directory, else the regular files under it (recursively)
// whose name ends in `extension` (".fio"), sorted; empty when there are none.
Result<std::vector<std::string>> FilesWithExtension(const std::string& path,
                                                    const std::string& extension);

// A tracer's files, for what is checked of them and said about them.
struct TraceFileKind {
  std::string_view what;       // "I/O trace", "HDF5 trace"
  std::string_view magic;      // the header's first 8 bytes ("FIOTRACE")
  uint32_t version = 0;        // the format version (u32le after the magic) this fathom reads
  size_t header_size = 0;      // the whole header's
  std::string_view extension;  // ".fio"
  std::string_view command;    // "fathom io run", which writes them
};

// Checks a trace's header; errors name the file and say what such files are, or which version
// this fathom reads.
Status CheckTraceHeader(std::string_view bytes, const std::string& name, const TraceFileKind& kind);

// The kind's files under `path` (FilesWithExtension); none is an error saying how to make them.
Result<std::vector<std::string>> FindTraceFilesOf(const std::string& path, const TraceFileKind& kind);

}  // namespace fathom
