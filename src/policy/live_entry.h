// live_entry.h — an entry of the live file system, reached without following any symbolic
// link: its parent directory is opened with openat2(RESOLVE_NO_SYMLINKS) and held, and every
// change is made relative to it, so that a symbolic link put in the path while a policy runs
// never leads an action outside the path it was decided for.
//
// Ownership: a LiveEntry owns its parent's descriptor. Threading: any thread, one entry each.
#pragma once

#include <sys/stat.h>

#include <string>

#include "core/unique_fd.h"
#include "fathom/status.h"

namespace fathom::policy {

struct LiveEntry {
  enum class Absent { kNo, kGone, kThroughLink };
  UniqueFd parent;        // O_PATH descriptor of the parent directory
  std::string path;       // as decided
  std::string name;       // its last component
  struct stat st {};
  Absent absent = Absent::kNo;  // kGone: no such entry now; kThroughLink: a component is a link
};

// The entry at absolute `path`; an error only for failures other than its absence.
Result<LiveEntry> OpenLive(const std::string& path);

// The entry's identity and type as now on the file system (fstatat through its parent).
Status Restat(LiveEntry& entry);

}  // namespace fathom::policy
