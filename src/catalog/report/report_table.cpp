#include "catalog/report/report_table.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace fathom::catalog::report {
namespace {

void AppendPadded(std::string& out, const std::string& text, int width) {
  if (static_cast<int>(text.size()) < width) out.append(width - text.size(), ' ');
  out.append(text);
}

std::string RenderJson(const Table& table) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t r = 0; r < table.rows.size(); ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    if (table.ranked) row["rank"] = r + 1;
    for (size_t c = 0; c < table.columns.size() && c < table.rows[r].size(); ++c) {
      const Cell& cell = table.rows[r][c];
      if (cell.number) {
        row[table.columns[c].name] = nlohmann::ordered_json::parse(cell.raw);
      } else {
        row[table.columns[c].name] = cell.raw;
      }
    }
    rows.push_back(std::move(row));
  }
  nlohmann::ordered_json doc = {{"report", table.name}, {"rows", std::move(rows)}};
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string Render(const Table& table, TableFormat format, bool header) {
  if (format == TableFormat::kJson) return RenderJson(table);
  const bool csv = format == TableFormat::kCsv;
  std::string out;
  if (header) {
    out += table.preamble;
    if (table.ranked) out += "rank, ";
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) out += ", ";
      const Column& col = table.columns[c];
      AppendPadded(out, col.name, csv ? col.csv_width : col.text_width);
    }
    out += "\n";
  }
  for (size_t r = 0; r < table.rows.size(); ++r) {
    if (table.ranked) {
      char rank[32];
      std::snprintf(rank, sizeof(rank), "%4zu, ", r + 1);
      out += rank;
    }
    for (size_t c = 0; c < table.columns.size() && c < table.rows[r].size(); ++c) {
      if (c > 0) out += ", ";
      const Column& col = table.columns[c];
      const Cell& cell = table.rows[r][c];
      AppendPadded(out, csv ? cell.raw : cell.text, csv ? col.csv_width : col.text_width);
    }
    out += "\n";
  }
  if (header && !table.footer.empty()) out += "\n" + table.footer + "\n";
  return out;
}

Cell TextCell(std::string text) {
  Cell cell;
  cell.raw = text;
  cell.text = std::move(text);
  return cell;
}

Cell CountCell(uint64_t n) {
  Cell cell;
  cell.text = cell.raw = std::to_string(n);
  cell.number = true;
  return cell;
}

Cell IntCell(int64_t n) {
  Cell cell;
  cell.text = cell.raw = std::to_string(n);
  cell.number = true;
  return cell;
}

std::string FormatFileSize(uint64_t bytes) {
  static const char* const kUnits[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1024) return std::to_string(bytes);
  double value = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while (unit < 5 && bytes >= (uint64_t{1} << (10 * (unit + 2)))) {
    value /= 1024.0;
    ++unit;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f %s", value, kUnits[unit]);
  return buf;
}

Cell SizeCell(uint64_t bytes) {
  Cell cell;
  cell.text = FormatFileSize(bytes);
  cell.raw = std::to_string(bytes);
  cell.number = true;
  return cell;
}

Cell DateCell(int64_t time_ns) {
  time_t seconds = static_cast<time_t>(time_ns / 1'000'000'000);
  if (time_ns < 0 && time_ns % 1'000'000'000 != 0) --seconds;
  tm local{};
  localtime_r(&seconds, &local);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y/%m/%d %T", &local);
  return TextCell(buf);
}

Column PathColumn(std::string name) { return {std::move(name), 40, 40}; }
Column NameColumn(std::string name) {
  int width = name == "type" ? 8 : 10;
  return {std::move(name), width, width};
}
Column CountColumn(std::string name) { return {std::move(name), 10, 10}; }
Column SizeColumn(std::string name) { return {std::move(name), 10, 15}; }
Column DateColumn(std::string name) { return {std::move(name), 20, 20}; }

}  // namespace fathom::catalog::report
