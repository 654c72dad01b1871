// --age-histogram, --size-log2, --extensions: regular files in ranges (reports.h).
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "catalog/report/entry_source.h"
#include "catalog/report/reports.h"

namespace fathom::catalog::report {
namespace {

struct Bin {
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t used = 0;
  void Add(const Attrs& a) {
    ++count;
    bytes += static_cast<uint64_t>(std::max<int64_t>(a.size, 0));
    used += static_cast<uint64_t>(std::max<int64_t>(a.blocks, 0)) * 512;
  }
};

Status ForEachFile(Catalog& catalog, const ReportOptions& options,
                   const std::function<void(const Visit&)>& fn) {
  Selection files;
  files.type = S_IFREG;
  return ForEachObject(catalog, files, options.filter_path, [&](const Visit& v) {
    fn(v);
    return true;
  });
}

void AddBinCells(std::vector<Cell>& row, const Bin& bin) {
  row.push_back(CountCell(bin.count));
  row.push_back(SizeCell(bin.bytes));
  row.push_back(SizeCell(bin.used));
}

}  // namespace

size_t AgeRangeOf(int64_t age_s) {
  constexpr int64_t kDay = 86400;
  size_t i = std::size(kAgeRanges) - 1;
  while (i > 0 && age_s < kAgeRanges[i].from_days * kDay) --i;
  return i;
}

Result<Table> AgeHistogram(Catalog& catalog, const ReportOptions& options, bool access_time) {
  constexpr size_t kRanges = std::size(kAgeRanges);
  std::vector<Bin> bins(kRanges);
  FATHOM_RETURN_IF_ERROR(ForEachFile(catalog, options, [&](const Visit& v) {
    int64_t time_ns = access_time ? v.node.attrs.atime_ns : v.node.attrs.mtime_ns;
    int64_t age_s = std::max<int64_t>(options.now_ns - time_ns, 0) / 1'000'000'000;
    bins[AgeRangeOf(age_s)].Add(v.node.attrs);
  }));
  Table t;
  t.name = access_time ? "age-histogram-atime" : "age-histogram-mtime";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.columns = {{access_time ? "atime_age" : "mtime_age", 10, 10}, CountColumn(),
               SizeColumn("volume"), SizeColumn("spc_used")};
  for (size_t i = 0; i < kRanges; ++i) {
    std::vector<Cell> row{TextCell(kAgeRanges[i].label)};
    AddBinCells(row, bins[i]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Result<Table> SizeLog2(Catalog& catalog, const ReportOptions& options) {
  std::map<int, Bin> bins;  // -1: empty files; k: sizes in [2^k, 2^(k+1))
  FATHOM_RETURN_IF_ERROR(ForEachFile(catalog, options, [&](const Visit& v) {
    int64_t size = v.node.attrs.size;
    int bin = size <= 0 ? -1 : 63 - __builtin_clzll(static_cast<uint64_t>(size));
    bins[bin].Add(v.node.attrs);
  }));
  Table t;
  t.name = "size-log2";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.columns = {SizeColumn("min_size"), SizeColumn("max_size"), CountColumn(),
               SizeColumn("volume"), SizeColumn("spc_used")};
  for (const auto& [bin, sums] : bins) {
    uint64_t min = bin < 0 ? 0 : uint64_t{1} << bin;
    uint64_t max = bin < 0 ? 0 : (bin == 63 ? UINT64_MAX : (uint64_t{1} << (bin + 1)) - 1);
    std::vector<Cell> row{SizeCell(min), SizeCell(max)};
    AddBinCells(row, sums);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Result<Table> Extensions(Catalog& catalog, const ReportOptions& options) {
  std::map<std::string, Bin> bins;
  FATHOM_RETURN_IF_ERROR(ForEachFile(catalog, options, [&](const Visit& v) {
    std::string_view name = v.path.substr(v.path.rfind('/') + 1);
    size_t dot = name.rfind('.');
    std::string ext = (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size())
                          ? ""
                          : std::string(name.substr(dot + 1));
    bins[ext].Add(v.node.attrs);
  }));
  std::vector<std::pair<std::string, Bin>> rows(bins.begin(), bins.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.second.count != b.second.count) return a.second.count > b.second.count;
    return a.second.bytes > b.second.bytes;
  });
  Table t;
  t.name = "extensions";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.columns = {{"extension", 10, 10}, CountColumn(), SizeColumn("volume"), SizeColumn("spc_used")};
  for (const auto& [ext, bin] : rows) {
    if (bin.count < options.count_min) continue;
    std::vector<Cell> row{TextCell(ext.empty() ? "(none)" : ext)};
    AddBinCells(row, bin);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace fathom::catalog::report
