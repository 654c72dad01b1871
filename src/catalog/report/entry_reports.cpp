// --top-size, --oldest-files, --dump, --entry-info (reports.h).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/report/entry_filter.h"
#include "catalog/report/entry_source.h"
#include "catalog/report/owners.h"
#include "catalog/report/reports.h"

namespace fathom::catalog::report {
namespace {

struct Entry {
  std::string path;
  Attrs attrs;
};

// The first `n` regular files in the order `before` gives (then by path).
template <typename Before>
Result<std::vector<Entry>> FirstFiles(Catalog& catalog, const ReportOptions& options, size_t n,
                                      Before before) {
  auto order = [&](const Entry& a, const Entry& b) {
    if (before(a.attrs, b.attrs)) return true;
    if (before(b.attrs, a.attrs)) return false;
    return a.path < b.path;
  };
  std::set<Entry, decltype(order)> kept(order);
  Selection files;
  files.type = S_IFREG;
  FATHOM_RETURN_IF_ERROR(ForEachObject(catalog, files, options.filter_path, [&](const Visit& v) {
    Entry e{std::string(v.path), v.node.attrs};
    if (kept.size() < n) {
      kept.insert(std::move(e));
    } else if (n > 0 && order(e, *std::prev(kept.end()))) {
      kept.erase(std::prev(kept.end()));
      kept.insert(std::move(e));
    }
    return true;
  }));
  return std::vector<Entry>(kept.begin(), kept.end());
}

uint64_t Bytes(int64_t n) { return static_cast<uint64_t>(std::max<int64_t>(n, 0)); }

std::string Octal(uint32_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04o", mode & 07777);
  return buf;
}

}  // namespace

Result<Table> TopSize(Catalog& catalog, const ReportOptions& options, size_t n) {
  FATHOM_ASSIGN_OR_RETURN(
      std::vector<Entry> files,
      FirstFiles(catalog, options, n, [](const Attrs& a, const Attrs& b) { return a.size > b.size; }));
  Table t;
  t.name = "top-size";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.ranked = true;
  t.columns = {PathColumn(),         SizeColumn("size"),        NameColumn("user"),
               NameColumn("group"),  DateColumn("last_access"), DateColumn("last_mod")};
  for (const Entry& e : files) {
    t.rows.push_back({TextCell(e.path), SizeCell(Bytes(e.attrs.size)), TextCell(UserName(e.attrs.uid)),
                      TextCell(GroupName(e.attrs.gid)), DateCell(e.attrs.atime_ns),
                      DateCell(e.attrs.mtime_ns)});
  }
  return t;
}

Result<Table> OldestFiles(Catalog& catalog, const ReportOptions& options, size_t n) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<Entry> files,
                          FirstFiles(catalog, options, n, [](const Attrs& a, const Attrs& b) {
                            return a.atime_ns < b.atime_ns;
                          }));
  Table t;
  t.name = "oldest-files";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.ranked = true;
  t.columns = {PathColumn(),             NameColumn("user"),     NameColumn("group"),
               DateColumn("last_access"), DateColumn("last_mod"), SizeColumn("size"),
               SizeColumn("spc_used")};
  for (const Entry& e : files) {
    t.rows.push_back({TextCell(e.path), TextCell(UserName(e.attrs.uid)),
                      TextCell(GroupName(e.attrs.gid)), DateCell(e.attrs.atime_ns),
                      DateCell(e.attrs.mtime_ns), SizeCell(Bytes(e.attrs.size)),
                      SizeCell(Bytes(e.attrs.blocks) * 512)});
  }
  return t;
}

Result<Table> Dump(Catalog& catalog, const ReportOptions& options) {
  Table t;
  t.name = "dump";
  t.preamble = PathFilterPreamble(options.filter_path);
  t.columns = {NameColumn("type"), SizeColumn("size"), NameColumn("user"), NameColumn("group"),
               PathColumn()};
  uint64_t count = 0;
  uint64_t bytes = 0;
  FATHOM_RETURN_IF_ERROR(ForEachObject(catalog, {}, options.filter_path, [&](const Visit& v) {
    const Attrs& a = v.node.attrs;
    t.rows.push_back({TextCell(TypeName(a.mode)), SizeCell(Bytes(a.size)), TextCell(UserName(a.uid)),
                      TextCell(GroupName(a.gid)), TextCell(std::string(v.path))});
    ++count;
    bytes += Bytes(a.size);
    return true;
  }));
  t.footer = "Total: " + std::to_string(count) + " entries, " + std::to_string(bytes) +
             " bytes (" + FormatFileSize(bytes) + ")";
  return t;
}

Result<Table> EntryInfo(Catalog& catalog, const std::string& path) {
  FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, catalog.Stat(path));
  if (!node) return Status::Error("'" + path + "' is not in the catalog");
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> paths, catalog.Paths(node->id));
  const Attrs& a = node->attrs;
  Table t;
  t.name = "entry-info";
  t.columns = {{"attribute", 15, 0}, {"value", 0, 0}};
  auto add = [&](const char* name, Cell value) { t.rows.push_back({TextCell(name), std::move(value)}); };
  add("id", IntCell(node->id));
  for (const std::string& p : paths) add("path", TextCell(p));
  add("type", TextCell(TypeName(a.mode)));
  add("size", SizeCell(Bytes(a.size)));
  add("spc_used", SizeCell(Bytes(a.blocks) * 512));
  add("user", TextCell(UserName(a.uid)));
  add("group", TextCell(GroupName(a.gid)));
  add("mode", TextCell(Octal(a.mode)));
  add("nlink", CountCell(a.nlink));
  add("last_access", DateCell(a.atime_ns));
  add("last_mod", DateCell(a.mtime_ns));
  add("last_mdchange", DateCell(a.ctime_ns));
  if (S_ISLNK(a.mode)) add("link", TextCell(a.symlink));
  if (a.lustre) {
    const LustreInfo& l = *a.lustre;
    add("fid", TextCell(l.fid));
    add("mdt_index", TextCell(std::to_string(l.mdt_index)));
    if (S_ISREG(a.mode) && l.stripe_count != 0) {
      add("stripe_count", TextCell(std::to_string(l.stripe_count)));
      add("stripe_size", TextCell(std::to_string(l.stripe_size)));
      if (!l.pool.empty()) add("pool", TextCell(l.pool));
      std::string osts;
      for (uint32_t ost : l.osts) osts += (osts.empty() ? "" : ",") + std::to_string(ost);
      add("osts", TextCell(osts));
    }
  }
  if (S_ISDIR(a.mode)) {
    FATHOM_ASSIGN_OR_RETURN(Totals totals, catalog.Subtree(node->id));
    add("subtree_count", CountCell(totals.entries()));
    add("subtree_volume", SizeCell(Bytes(totals.size)));
    add("subtree_spc_used", SizeCell(Bytes(totals.blocks) * 512));
  }
  return t;
}

std::string RenderEntryInfo(const Table& table, TableFormat format) {
  if (format == TableFormat::kJson) {
    // One object: attribute -> value, "path" a list of every name.
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    doc["path"] = nlohmann::ordered_json::array();
    for (const auto& r : table.rows) {
      nlohmann::ordered_json value = r[1].number ? nlohmann::ordered_json::parse(r[1].raw) : nlohmann::ordered_json(r[1].raw);
      if (r[0].raw == "path") {
        doc["path"].push_back(std::move(value));
      } else {
        doc[r[0].raw] = std::move(value);
      }
    }
    nlohmann::ordered_json report = {{"report", table.name}, {"entry", std::move(doc)}};
    return report.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  std::string out;
  for (const auto& r : table.rows) {
    char name[64];
    if (format == TableFormat::kCsv) {
      out += r[0].raw + ", " + r[1].raw + "\n";
    } else {
      std::snprintf(name, sizeof(name), "%-15s: \t", r[0].text.c_str());
      out += name + r[1].text + "\n";
    }
  }
  return out;
}

}  // namespace fathom::catalog::report
