// entry_filter.h — the owner and type bounds a query counts entries by (rbh-du's -u, -g,
// -t): every bound given must hold. Plain values, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog::report {

struct EntryFilter {
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;
  std::optional<uint32_t> type;  // S_IFMT bits

  bool empty() const { return !uid && !gid && !type; }
  bool Matches(const Attrs& attrs) const;
};

// find's type letters: f d l b c p s; an error naming `letter` otherwise.
Result<uint32_t> ParseFileType(std::string_view letter);

// Robinhood's type names: "file", "dir", "symlink", "chr", "blk", "fifo", "sock".
const char* TypeName(uint32_t mode);

}  // namespace fathom::catalog::report
