// du.h — `fathom du`: GNU du's listing (coreutils 9.1) answered from a catalog, with
// rbh-du's owner and type bounds.
//
// Contract: for each argument, the lines GNU du prints for the same tree and options — the
// size of each directory (post-order, children in byte order of their names; GNU follows
// readdir order), of each other entry with `all`, the `total` line with `total`; a file with
// several links counted once, at the first name met, and with several arguments anything an
// earlier argument held counted and listed once (neither with `count_links`). A directory
// summarized without bounds (`max_depth` 0) is answered from the catalog's kept totals
// (Catalog::Usage: the same cost whatever its size, less what earlier arguments below it
// counted); a file with two names under two such arguments is then counted in both, where
// GNU counts it in the first only. Anything else walks the catalog. The file system is never
// read.
//
// Ownership: Du() reads `catalog` and writes through `sink` during the call only. Threads:
// one, like the Catalog.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/report/entry_filter.h"
#include "catalog/report/size_format.h"
#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog::report {

struct DuOptions {
  bool all = false;               // -a: every entry, not only directories
  std::optional<int> max_depth;   // -d N (-s: 0)
  bool apparent_size = false;     // --apparent-size, -b: st_size instead of blocks
  bool inodes = false;            // --inodes: count entries
  bool total = false;             // -c: a last line "N\ttotal"
  bool count_links = false;       // -l: a file with several names counted at each
  char line_end = '\n';           // -0: '\0'
  SizeFormat format;              // -B, -k, -m, -h, -b
  EntryFilter filter;             // -u, -g, -t: only matching entries count
  std::string cwd = "/";          // relative arguments start here
};

struct DuSink {
  std::function<void(std::string_view line)> line;        // a whole line, its end included
  std::function<void(const std::string& arg)> missing;    // an argument the catalog lacks
};

// Lists `args` (at least one). A catalog failure stops the listing and is returned; missing
// arguments are reported through the sink and the rest still listed.
Status Du(Catalog& catalog, const std::vector<std::string>& args, const DuOptions& options,
          const DuSink& sink);

}  // namespace fathom::catalog::report
