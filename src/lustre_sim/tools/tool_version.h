// tool_version.h — what `lfs --version` and `lctl --version` print: Lustre's form ("lfs 2.15.0")
// with the emulator named after it, so that scripts parsing the version read the Lustre
// release the emulator follows.
#pragma once

#include <cstdio>

#include "fathom/config.h"

namespace fathom::lustre_sim::tools {

// The Lustre release whose tools, records and library the emulator follows.
inline constexpr const char* kEmulatedLustreVersion = "2.15.0";

inline int PrintVersion(const char* tool) {
  std::printf("%s %s (fathom-lustre-sim %s)\n", tool, kEmulatedLustreVersion, FATHOM_VERSION);
  return 0;
}

}  // namespace fathom::lustre_sim::tools
