// --fs-info, --user-info, --group-info, --top-users, --top-groups (reports.h).
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "catalog/report/entry_filter.h"
#include "catalog/report/entry_source.h"
#include "catalog/report/owners.h"
#include "catalog/report/reports.h"

namespace fathom::catalog::report {
namespace {

constexpr const char* kProfileTitles[kSizeBuckets] = {
    "0", "1~31", "32~1K-", "1K~31K", "32K~1M-", "1M~31M", "32M~1G-", "1G~31G", "32G~1T-", "+1T"};

// What a group of objects adds up to; min and max only when summed from the entries.
struct Sums {
  uint64_t count = 0;
  int64_t size = 0;
  int64_t blocks = 0;
  std::array<uint64_t, kSizeBuckets> buckets{};
  std::optional<int64_t> min_size, max_size;

  void Add(const Sums& o) {
    count += o.count;
    size += o.size;
    blocks += o.blocks;
    for (int i = 0; i < kSizeBuckets; ++i) buckets[i] += o.buckets[i];
    if (o.min_size) min_size = min_size ? std::min(*min_size, *o.min_size) : *o.min_size;
    if (o.max_size) max_size = max_size ? std::max(*max_size, *o.max_size) : *o.max_size;
  }
};

struct Group {
  uint32_t uid = 0, gid = 0, type = 0;
  Sums sums;
};

// Kept accounting, or under a path filter the matching entries summed.
Result<std::vector<Group>> Groups(Catalog& catalog, const ReportOptions& options,
                                  bool* from_entries) {
  std::vector<Group> groups;
  *from_entries = !options.filter_path.empty();
  if (!*from_entries) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<AcctRow> rows, catalog.Accounting());
    for (const AcctRow& row : rows) {
      Group g{row.uid, row.gid, row.type, {}};
      g.sums.count = row.count;
      g.sums.size = row.size;
      g.sums.blocks = row.blocks;
      g.sums.buckets = row.buckets;
      groups.push_back(g);
    }
    return groups;
  }
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Sums> by_key;
  FATHOM_RETURN_IF_ERROR(ForEachObject(catalog, {}, options.filter_path, [&](const Visit& v) {
    const Attrs& a = v.node.attrs;
    Sums one;
    one.count = 1;
    one.size = a.size;
    one.blocks = a.blocks;
    one.buckets[SizeBucket(a.size)] = 1;
    one.min_size = one.max_size = a.size;
    by_key[{a.uid, a.gid, a.mode & S_IFMT}].Add(one);
    return true;
  }));
  for (const auto& [key, sums] : by_key) {
    groups.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), sums});
  }
  return groups;
}

uint64_t Average(const Sums& s) {
  if (s.count == 0) return 0;
  return (static_cast<uint64_t>(std::max<int64_t>(s.size, 0)) * 2 + s.count) / (2 * s.count);
}

// The columns after the group's own: Robinhood's order for info reports (count first) or
// for top reports (volume first).
void AddSumColumns(Table& t, bool count_first, bool with_min_max, bool profile) {
  if (count_first) t.columns.push_back(CountColumn());
  t.columns.push_back(SizeColumn("volume"));
  t.columns.push_back(SizeColumn("spc_used"));
  if (!count_first) t.columns.push_back(CountColumn());
  if (with_min_max) {
    t.columns.push_back(SizeColumn("min_size"));
    t.columns.push_back(SizeColumn("max_size"));
  }
  t.columns.push_back(SizeColumn("avg_size"));
  if (profile) {
    for (const char* title : kProfileTitles) t.columns.push_back({title, 8, 8});
  }
}

void AddSumCells(std::vector<Cell>& row, const Sums& s, bool count_first, bool with_min_max,
                 bool profile) {
  if (count_first) row.push_back(CountCell(s.count));
  row.push_back(SizeCell(static_cast<uint64_t>(std::max<int64_t>(s.size, 0))));
  row.push_back(SizeCell(static_cast<uint64_t>(std::max<int64_t>(s.blocks, 0)) * 512));
  if (!count_first) row.push_back(CountCell(s.count));
  if (with_min_max) {
    row.push_back(SizeCell(static_cast<uint64_t>(std::max<int64_t>(s.min_size.value_or(0), 0))));
    row.push_back(SizeCell(static_cast<uint64_t>(std::max<int64_t>(s.max_size.value_or(0), 0))));
  }
  row.push_back(SizeCell(Average(s)));
  if (profile) {
    for (uint64_t n : s.buckets) row.push_back(CountCell(n));
  }
}

std::string TotalFooter(const Sums& total) {
  uint64_t size = static_cast<uint64_t>(std::max<int64_t>(total.size, 0));
  uint64_t used = static_cast<uint64_t>(std::max<int64_t>(total.blocks, 0)) * 512;
  return "Total: " + std::to_string(total.count) + " entries, volume: " + std::to_string(size) +
         " bytes (" + FormatFileSize(size) + "), space used: " + std::to_string(used) +
         " bytes (" + FormatFileSize(used) + ")";
}

std::string OwnerName(Owner owner, const Group& g) {
  return owner == Owner::kUser ? UserName(g.uid) : GroupName(g.gid);
}

}  // namespace

Result<Table> FsInfo(Catalog& catalog, const ReportOptions& options) {
  bool from_entries = false;
  FATHOM_ASSIGN_OR_RETURN(std::vector<Group> groups, Groups(catalog, options, &from_entries));
  std::map<std::string, Sums> by_type;
  for (const Group& g : groups) by_type[TypeName(g.type)].Add(g.sums);
  Table t;
  t.name = "fs-info";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.columns.push_back(NameColumn("type"));
  AddSumColumns(t, true, from_entries, options.size_profile);
  Sums total;
  for (const auto& [type, sums] : by_type) {
    if (sums.count == 0 || sums.count < options.count_min) continue;
    std::vector<Cell> row{TextCell(type)};
    AddSumCells(row, sums, true, from_entries, options.size_profile);
    t.rows.push_back(std::move(row));
    total.Add(sums);
  }
  t.footer = TotalFooter(total);
  return t;
}

Result<Table> OwnerInfo(Catalog& catalog, const ReportOptions& options, Owner owner,
                        std::optional<uint32_t> id) {
  bool from_entries = false;
  FATHOM_ASSIGN_OR_RETURN(std::vector<Group> groups, Groups(catalog, options, &from_entries));
  std::map<std::pair<std::string, std::string>, Sums> by_owner_type;
  for (const Group& g : groups) {
    uint32_t gid_or_uid = owner == Owner::kUser ? g.uid : g.gid;
    if (id && gid_or_uid != *id) continue;
    by_owner_type[{OwnerName(owner, g), TypeName(g.type)}].Add(g.sums);
  }
  Table t;
  t.name = owner == Owner::kUser ? "user-info" : "group-info";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.columns.push_back(NameColumn(owner == Owner::kUser ? "user" : "group"));
  t.columns.push_back(NameColumn("type"));
  AddSumColumns(t, true, from_entries, options.size_profile);
  Sums total;
  for (const auto& [key, sums] : by_owner_type) {
    if (sums.count == 0 || sums.count < options.count_min) continue;
    std::vector<Cell> row{TextCell(key.first), TextCell(key.second)};
    AddSumCells(row, sums, true, from_entries, options.size_profile);
    t.rows.push_back(std::move(row));
    total.Add(sums);
  }
  t.footer = TotalFooter(total);
  return t;
}

Result<Table> TopOwners(Catalog& catalog, const ReportOptions& options, Owner owner, size_t n) {
  bool from_entries = false;
  FATHOM_ASSIGN_OR_RETURN(std::vector<Group> groups, Groups(catalog, options, &from_entries));
  std::map<std::string, Sums> by_owner;
  for (const Group& g : groups) {
    // Sizes rank regular files only (Robinhood); counts rank every entry.
    if (!options.by_count && g.type != S_IFREG) continue;
    by_owner[OwnerName(owner, g)].Add(g.sums);
  }
  std::vector<std::pair<std::string, Sums>> ranked;
  for (const auto& [name, sums] : by_owner) {
    if (sums.count > 0 && sums.count >= options.count_min) ranked.emplace_back(name, sums);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    return options.by_count ? a.second.count > b.second.count : a.second.size > b.second.size;
  });
  if (ranked.size() > n) ranked.resize(n);
  Table t;
  t.name = owner == Owner::kUser ? "top-users" : "top-groups";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.ranked = true;
  t.columns.push_back(NameColumn(owner == Owner::kUser ? "user" : "group"));
  AddSumColumns(t, false, from_entries, options.size_profile);
  for (const auto& [name, sums] : ranked) {
    std::vector<Cell> row{TextCell(name)};
    AddSumCells(row, sums, false, from_entries, options.size_profile);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace fathom::catalog::report
