// local_stats_text.h — the kernel's own I/O statistics of a machine, read into counters of
// the shape Lustre's readers use (src/lustre/stats_text.h), so that the sampler treats a
// local device or an NFS mount like a Lustre target.
//
//   ParseDiskstats:   /proc/diskstats; per device: read_bytes and write_bytes (samples: I/Os
//                     completed, sum: sectors * 512), read and write (samples: I/Os, sum:
//                     the time spent, in usecs).
//   ParseMountstats:  /proc/self/mountstats; per NFS mount ("nfs:SERVER:/EXPORT"):
//                     read_bytes and write_bytes (samples: READ/WRITE operations, sum: the
//                     bytes read from and written to the server), and every per-op line as
//                     a lower-case counter (samples: operations, sum: execution time in usecs).
//
// A line that cannot be read is a problem with its line number; the rest is still read. Pure
// functions, any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lustre/stats_text.h"

namespace fathom::io {

struct LocalStats {
  std::map<std::string, std::map<std::string, lustre::StatsCounter>> targets;
  std::vector<lustre::TextProblem> problems;
};

LocalStats ParseDiskstats(std::string_view text);
LocalStats ParseMountstats(std::string_view text);

}  // namespace fathom::io
