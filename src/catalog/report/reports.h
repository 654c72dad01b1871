// reports.h — `fathom report`: Robinhood v3's rbh-report statistics answered from the
// catalog, with its columns and formats (rbh-report's text, --csv, and JSON), plus the
// reports its users asked for: --top-groups, directories by subtree totals, age and size
// histograms, extensions, big directories.
//
// Where the numbers come from: --fs-info, --user-info, --group-info, --top-users and
// --top-groups from the catalog's kept accounting (Catalog::Accounting: the same cost
// whatever the catalog holds; Robinhood's columns min_size and max_size are then absent, as
// with its accounting table); under --filter-path they are summed from the matching
// entries, min_size and max_size included. --top-dirs, --big-dirs and --oldest-empty-dirs
// read every directory's kept subtree totals; the others select entries through the
// catalog's indexes. Every report counts each object once (a file's first name).
//
// Ownership: each function reads `catalog` during the call and returns its table. Threads:
// one, like the Catalog.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/report/report_table.h"
#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog::report {

struct ReportOptions {
  std::string filter_path;       // --filter-path GLOB ("" none), absolute
  uint64_t count_min = 0;        // --count-min N: rows with fewer entries left out
  bool size_profile = false;     // --size-profile: Robinhood's ten size ranges as columns
  bool by_count = false;         // --by-count
  bool by_size = false;          // --by-size
  int64_t now_ns = 0;            // ages are measured from here
};

enum class Owner { kUser, kGroup };

Result<Table> FsInfo(Catalog& catalog, const ReportOptions& options);
// --user-info[=U] / --group-info[=G]: per owner and type; `id` keeps one owner.
Result<Table> OwnerInfo(Catalog& catalog, const ReportOptions& options, Owner owner,
                        std::optional<uint32_t> id);
// --top-users[=N] / --top-groups[=N]: regular files by volume (all entries by count with
// by_count).
Result<Table> TopOwners(Catalog& catalog, const ReportOptions& options, Owner owner, size_t n);
// --top-dirs[=N]: directories by subtree entries (by_size: by subtree volume).
Result<Table> TopDirs(Catalog& catalog, const ReportOptions& options, size_t n);
// --big-dirs: directories whose subtree holds more than `min_bytes` bytes or more than
// `min_entries` entries (whichever is given), largest first.
Result<Table> BigDirs(Catalog& catalog, const ReportOptions& options,
                      std::optional<int64_t> min_bytes, std::optional<uint64_t> min_entries);
Result<Table> TopSize(Catalog& catalog, const ReportOptions& options, size_t n);
Result<Table> OldestFiles(Catalog& catalog, const ReportOptions& options, size_t n);
Result<Table> OldestEmptyDirs(Catalog& catalog, const ReportOptions& options, size_t n);
Result<Table> Dump(Catalog& catalog, const ReportOptions& options);
// --entry-info PATH: one row per attribute (Robinhood's "name: value" lines).
Result<Table> EntryInfo(Catalog& catalog, const std::string& path);
// --age-histogram=atime|mtime: regular files by age range.
Result<Table> AgeHistogram(Catalog& catalog, const ReportOptions& options, bool access_time);
// --size-log2: regular files by floor(log2(size)).
Result<Table> SizeLog2(Catalog& catalog, const ReportOptions& options);
// --extensions: regular files by the part of their name after the last '.'.
Result<Table> Extensions(Catalog& catalog, const ReportOptions& options);

// rbh-report's age ranges (--age-histogram): from (inclusive) to the next one's start, in days.
struct AgeRange {
  const char* label;
  int64_t from_days;
};
inline constexpr AgeRange kAgeRanges[] = {{"0~1d", 0},     {"1d~1w", 1},     {"1w~30d", 7},
                                          {"30d~90d", 30}, {"90d~180d", 90}, {"180d~1y", 180},
                                          {"1y~2y", 365},  {"+2y", 730}};
// The index in kAgeRanges of an age in seconds (negative ages are the first range).
size_t AgeRangeOf(int64_t age_s);

// A directory and the kept totals of its subtree (--top-dirs, --big-dirs).
struct DirTotals {
  std::string path;
  Attrs attrs;
  Totals totals;
};
// The directories matching options.filter_path (every one when empty), with their totals.
Result<std::vector<DirTotals>> Directories(Catalog& catalog, const ReportOptions& options);
// Largest first by `by_size` (volume) or by entries; then by path.
void SortLargestFirst(std::vector<DirTotals>& dirs, bool by_size);

// Renders EntryInfo's table as rbh-report does ("%-15s: \t%s", or "name, value" with --csv).
std::string RenderEntryInfo(const Table& table, TableFormat format);

}  // namespace fathom::catalog::report
