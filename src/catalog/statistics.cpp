#include "catalog/statistics.h"

#include <sys/stat.h>

#include <algorithm>
#include <bit>

namespace fathom::catalog {

int SizeBucket(int64_t size) {
  if (size <= 0) return 0;
  // floor(log2(size)) / 5, plus one for the empty bucket, the last bucket open-ended.
  int log2 = std::bit_width(static_cast<uint64_t>(size)) - 1;
  return std::min(log2 / 5 + 1, kSizeBuckets - 1);
}

TotalsDelta& TotalsDelta::operator+=(const TotalsDelta& other) {
  files += other.files;
  dirs += other.dirs;
  symlinks += other.symlinks;
  others += other.others;
  size += other.size;
  blocks += other.blocks;
  max_mtime_ns = std::max(max_mtime_ns, other.max_mtime_ns);
  return *this;
}

TotalsDelta TotalsDelta::Negated() const {
  return TotalsDelta{-files, -dirs, -symlinks, -others, -size, -blocks, 0};
}

bool TotalsDelta::IsZero() const {
  return files == 0 && dirs == 0 && symlinks == 0 && others == 0 && size == 0 && blocks == 0 &&
         max_mtime_ns == 0;
}

TotalsDelta NameContribution(const Attrs& attrs) {
  TotalsDelta d;
  switch (attrs.mode & S_IFMT) {
    case S_IFREG: d.files = 1; break;
    case S_IFDIR: d.dirs = 1; break;
    case S_IFLNK: d.symlinks = 1; break;
    default: d.others = 1; break;
  }
  d.size = attrs.size;
  d.blocks = attrs.blocks;
  d.max_mtime_ns = attrs.mtime_ns;
  return d;
}

TotalsDelta FromTotals(const Totals& t) {
  return TotalsDelta{static_cast<int64_t>(t.files), static_cast<int64_t>(t.dirs),
                     static_cast<int64_t>(t.symlinks), static_cast<int64_t>(t.others),
                     t.size, t.blocks, t.max_mtime_ns};
}

void Apply(const TotalsDelta& d, Totals& t) {
  t.files = static_cast<uint64_t>(static_cast<int64_t>(t.files) + d.files);
  t.dirs = static_cast<uint64_t>(static_cast<int64_t>(t.dirs) + d.dirs);
  t.symlinks = static_cast<uint64_t>(static_cast<int64_t>(t.symlinks) + d.symlinks);
  t.others = static_cast<uint64_t>(static_cast<int64_t>(t.others) + d.others);
  t.size += d.size;
  t.blocks += d.blocks;
  t.max_mtime_ns = std::max(t.max_mtime_ns, d.max_mtime_ns);
}

AcctDelta& AcctDelta::operator+=(const AcctDelta& other) {
  count += other.count;
  size += other.size;
  blocks += other.blocks;
  for (int i = 0; i < kSizeBuckets; ++i) buckets[i] += other.buckets[i];
  return *this;
}

bool AcctDelta::IsZero() const {
  return count == 0 && size == 0 && blocks == 0 &&
         std::all_of(buckets.begin(), buckets.end(), [](int64_t b) { return b == 0; });
}

AcctKey AcctKeyOf(const Attrs& attrs) { return AcctKey{attrs.uid, attrs.gid, attrs.mode & S_IFMT}; }

AcctDelta ObjectContribution(const Attrs& attrs, int sign) {
  AcctDelta d;
  d.count = sign;
  d.size = sign * attrs.size;
  d.blocks = sign * attrs.blocks;
  d.buckets[SizeBucket(attrs.size)] = sign;
  return d;
}

const char* TypeName(uint32_t type) {
  switch (type) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    case S_IFCHR: return "char-device";
    case S_IFBLK: return "block-device";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    default: return "unknown";
  }
}

AcctDelta DeltaOf(const AcctRow& row) {
  AcctDelta d;
  d.count = static_cast<int64_t>(row.count);
  d.size = row.size;
  d.blocks = row.blocks;
  for (int i = 0; i < kSizeBuckets; ++i) d.buckets[i] = static_cast<int64_t>(row.buckets[i]);
  return d;
}

AcctRow RowOf(const AcctKey& key, const AcctDelta& delta) {
  AcctRow row;
  row.uid = key.uid;
  row.gid = key.gid;
  row.type = key.type;
  row.count = static_cast<uint64_t>(delta.count);
  row.size = delta.size;
  row.blocks = delta.blocks;
  for (int i = 0; i < kSizeBuckets; ++i) row.buckets[i] = static_cast<uint64_t>(delta.buckets[i]);
  return row;
}

uint64_t AccountedUpperBound(const std::vector<AcctRow>& rows, const Selection& selection) {
  const bool sized = selection.min_size || selection.max_size;
  const int first = SizeBucket(std::max<int64_t>(selection.min_size.value_or(0), 0));
  const int last = selection.max_size ? SizeBucket(std::max<int64_t>(*selection.max_size, 0)) : kSizeBuckets - 1;
  uint64_t bound = 0;
  for (const AcctRow& row : rows) {
    if ((selection.uid && row.uid != *selection.uid) || (selection.gid && row.gid != *selection.gid) ||
        (selection.type && row.type != *selection.type)) {
      continue;
    }
    if (!sized) {
      bound += row.count;
      continue;
    }
    for (int b = first; b <= last; ++b) bound += row.buckets[static_cast<size_t>(b)];
  }
  return bound;
}

}  // namespace fathom::catalog
