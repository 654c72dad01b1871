// --top-dirs, --big-dirs, --oldest-empty-dirs: directories by their kept subtree totals
// (reports.h).
#include <sys/stat.h>

#include <algorithm>

#include "catalog/report/entry_source.h"
#include "catalog/report/owners.h"
#include "catalog/report/reports.h"

namespace fathom::catalog::report {

Result<std::vector<DirTotals>> Directories(Catalog& catalog, const ReportOptions& options) {
  std::vector<DirTotals> dirs;
  Selection dirs_only;
  dirs_only.type = S_IFDIR;
  Status failed = Status::Ok();
  FATHOM_RETURN_IF_ERROR(ForEachObject(catalog, dirs_only, options.filter_path, [&](const Visit& v) {
    auto totals = catalog.Subtree(v.node.id);
    if (!totals.ok()) {
      failed = totals.status();
      return false;
    }
    dirs.push_back({std::string(v.path), v.node.attrs, totals.value()});
    return true;
  }));
  FATHOM_RETURN_IF_ERROR(failed);
  return dirs;
}

namespace {

Table SubtreeTable(std::string name, const ReportOptions& options, bool ranked,
                   const std::vector<DirTotals>& dirs) {
  Table t;
  t.name = std::move(name);
  t.preamble = PathFilterPreamble(options.filter_path);
  t.ranked = ranked;
  t.columns = {PathColumn(),          CountColumn(),        SizeColumn("volume"),
               SizeColumn("spc_used"), NameColumn("user"),   NameColumn("group"),
               DateColumn("last_mod")};
  for (const DirTotals& d : dirs) {
    t.rows.push_back({TextCell(d.path), CountCell(d.totals.entries()),
                      SizeCell(static_cast<uint64_t>(std::max<int64_t>(d.totals.size, 0))),
                      SizeCell(static_cast<uint64_t>(std::max<int64_t>(d.totals.blocks, 0)) * 512),
                      TextCell(UserName(d.attrs.uid)), TextCell(GroupName(d.attrs.gid)),
                      DateCell(d.attrs.mtime_ns)});
  }
  return t;
}

}  // namespace

void SortLargestFirst(std::vector<DirTotals>& dirs, bool by_size) {
  std::sort(dirs.begin(), dirs.end(), [by_size](const DirTotals& a, const DirTotals& b) {
    if (by_size && a.totals.size != b.totals.size) return a.totals.size > b.totals.size;
    if (a.totals.entries() != b.totals.entries()) return a.totals.entries() > b.totals.entries();
    return a.path < b.path;
  });
}

Result<Table> TopDirs(Catalog& catalog, const ReportOptions& options, size_t n) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<DirTotals> dirs, Directories(catalog, options));
  std::erase_if(dirs, [&](const DirTotals& d) { return d.totals.entries() < options.count_min; });
  SortLargestFirst(dirs, options.by_size);
  if (dirs.size() > n) dirs.resize(n);
  return SubtreeTable("top-dirs", options, true, dirs);
}

Result<Table> BigDirs(Catalog& catalog, const ReportOptions& options,
                      std::optional<int64_t> min_bytes, std::optional<uint64_t> min_entries) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<DirTotals> dirs, Directories(catalog, options));
  std::erase_if(dirs, [&](const DirTotals& d) {
    bool big = (min_bytes && d.totals.size > *min_bytes) ||
               (min_entries && d.totals.entries() > *min_entries);
    return !big;
  });
  SortLargestFirst(dirs, min_bytes.has_value());
  return SubtreeTable("big-dirs", options, false, dirs);
}

Result<Table> OldestEmptyDirs(Catalog& catalog, const ReportOptions& options, size_t n) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<DirTotals> dirs, Directories(catalog, options));
  std::erase_if(dirs, [](const DirTotals& d) { return d.totals.entries() != 1; });
  std::sort(dirs.begin(), dirs.end(), [](const DirTotals& a, const DirTotals& b) {
    if (a.attrs.mtime_ns != b.attrs.mtime_ns) return a.attrs.mtime_ns < b.attrs.mtime_ns;
    return a.path < b.path;
  });
  if (dirs.size() > n) dirs.resize(n);
  Table t;
  t.name = "oldest-empty-dirs";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.ranked = true;
  t.columns = {PathColumn(), NameColumn("user"), NameColumn("group"), DateColumn("last_mod")};
  for (const DirTotals& d : dirs) {
    t.rows.push_back({TextCell(d.path), TextCell(UserName(d.attrs.uid)),
                      TextCell(GroupName(d.attrs.gid)), DateCell(d.attrs.mtime_ns)});
  }
  return t;
}

}  // namespace fathom::catalog::report
