// trace_files.h — reading a tracer's files whole and finding them under a directory (the I/O
// and HDF5 traces, the job files). Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom {

// The bytes of `path`; errors say "cannot open the <what> <path>" or "cannot read ...".
Result<std::string> ReadWholeFile(const std::string& path, const std::string& what);

// `path` itself when it is not a directory, else the regular files under it (recursively)
// whose name ends in `extension` (".fio"), sorted; empty when there are none.
Result<std::vector<std::string>> FilesWithExtension(const std::string& path,
                                                    const std::string& extension);

}  // namespace fathom
