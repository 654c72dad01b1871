// find.h — `fathom find`: GNU find's command line answered from the catalog.
//
// Contract: RunFind() parses args (what follows `fathom find --catalog URI`), then for each
// starting point (resolved against the working directory, looked up in the catalog) visits
// the catalog's entries and evaluates the expression on each, writing what the actions
// print to `out` and diagnostics ("fathom find: ...") to `err`; returns GNU's exit status
// (0, or 1 after any error). Order: pre-order with a directory's names in byte order
// (GNU find uses readdir order, which differs between file systems; compare sorted), or
// post-order with -depth/-delete. When the expression's top-level conjunction constrains
// indexed attributes (owner, group, size, mtime) and it neither prunes nor quits,
// candidates come from Catalog::Select instead of a walk, sorted into the walk's order: the
// same output. Actions that change the file system check the live entry first (actions.h).
//
// Ownership: borrows the catalog and streams for the call. Threading: the catalog's rule
// (one thread at a time).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/find/expression.h"
#include "fathom/catalog.h"
#include "fathom/policy.h"

namespace fathom::catalog::find {

struct RunOptions {
  std::optional<int64_t> now_ns;      // the reference time; default: now
  std::optional<std::string> cwd;     // for relative starting points; default: getcwd()
  std::optional<uint32_t> uid;        // who asks (-readable...); default: the effective ids
  std::optional<std::vector<uint32_t>> gids;
  // Indexed tests narrow the candidates (Catalog::Select) only while they leave fewer than
  // this many objects and fewer than a sixteenth of the catalog; past that, a walk reads less.
  uint64_t select_below = 4096;
  // The policy configuration's file classes, for -class (borrowed for the call).
  const policy::PolicyConfig* config = nullptr;
};

int RunFind(const std::vector<std::string>& args, Catalog& catalog, std::ostream& out,
            std::ostream& err, const RunOptions& options = {});


}  // namespace fathom::catalog::find
