// statistics.h — the catalog's kept statistics as values that add up: what one name or one
// object contributes to the subtree totals and to the accounting, and the deltas a batch
// accumulates in memory before writing them at commit. Backend-neutral; plain values, any
// thread.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "fathom/catalog.h"

namespace fathom::catalog {

// A signed change of Totals; max_mtime_ns only ever rises (a high-water mark: removals do not
// lower it, Recount(repair) does).
struct TotalsDelta {
  int64_t files = 0;
  int64_t dirs = 0;
  int64_t symlinks = 0;
  int64_t others = 0;
  int64_t size = 0;
  int64_t blocks = 0;
  int64_t max_mtime_ns = 0;

  TotalsDelta& operator+=(const TotalsDelta& other);
  // The same counts negated (max_mtime_ns 0: a removal never lowers it).
  TotalsDelta Negated() const;
  bool IsZero() const;
};

// What one name of an object with `attrs` adds to the totals of every subtree holding it.
TotalsDelta NameContribution(const Attrs& attrs);
TotalsDelta FromTotals(const Totals& totals);
// Applies `delta` to `totals` (max_mtime_ns: the larger).
void Apply(const TotalsDelta& delta, Totals& totals);

struct AcctKey {
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t type = 0;  // S_IFMT bits
  friend auto operator<=>(const AcctKey&, const AcctKey&) = default;
};

struct AcctDelta {
  int64_t count = 0;
  int64_t size = 0;
  int64_t blocks = 0;
  std::array<int64_t, kSizeBuckets> buckets{};

  AcctDelta& operator+=(const AcctDelta& other);
  bool IsZero() const;
};

AcctKey AcctKeyOf(const Attrs& attrs);
// One object with `attrs` (sign +1: added, -1: gone).
AcctDelta ObjectContribution(const Attrs& attrs, int sign);
// An accounting row as the delta that adds it to nothing, and back.
AcctDelta DeltaOf(const AcctRow& row);
AcctRow RowOf(const AcctKey& key, const AcctDelta& delta);

// How many objects at most match `selection` by the accounting `rows`: owner, group and type
// exactly, the size by whole buckets (an upper bound); mtime bounds are not counted there.
uint64_t AccountedUpperBound(const std::vector<AcctRow>& rows, const Selection& selection);

// "file", "dir", "symlink", "other" — for messages.
const char* TypeName(uint32_t type);

// The deltas of one batch, written at commit.
struct PendingStatistics {
  std::unordered_map<EntryId, TotalsDelta> tree;  // per directory
  std::map<AcctKey, AcctDelta> acct;

  void AddAcct(const Attrs& attrs, int sign) { acct[AcctKeyOf(attrs)] += ObjectContribution(attrs, sign); }
  void Clear() {
    tree.clear();
    acct.clear();
  }
};

}  // namespace fathom::catalog
