#include "catalog/report/removed_report.h"

#include <algorithm>

#include "catalog/report/entry_filter.h"
#include "catalog/report/owners.h"

namespace fathom::catalog::report {

Result<Table> RemovedList(Catalog& catalog, const std::string& path, int64_t since_ns) {
  Table t;
  t.name = "removed";
  t.columns = {DateColumn("rm_time"), PathColumn(),        NameColumn("type"),
               SizeColumn("size"),    NameColumn("user"),  NameColumn("rm_by"),
               {"jobid", 10, 10}};
  std::string prefix = path == "/" ? "" : path;
  uint64_t count = 0;
  uint64_t bytes = 0;
  FATHOM_RETURN_IF_ERROR(catalog.Removed(prefix, since_ns, [&](const RemovedEntry& e) {
    uint64_t size = static_cast<uint64_t>(std::max<int64_t>(e.attrs.size, 0));
    t.rows.push_back({DateCell(e.removal.time_ns), TextCell(e.path), TextCell(TypeName(e.attrs.mode)),
                      SizeCell(size), TextCell(UserName(e.attrs.uid)),
                      TextCell(e.removal.uid ? UserName(*e.removal.uid) : ""),
                      TextCell(e.removal.jobid)});
    ++count;
    bytes += size;
    return true;
  }));
  t.footer = "Total: " + std::to_string(count) + " entries, " + std::to_string(bytes) +
             " bytes (" + FormatFileSize(bytes) + ")";
  return t;
}

}  // namespace fathom::catalog::report
