// report_table.h — a report as rows of cells, and its three renderings: Robinhood's
// rbh-report text (columns right-aligned to its widths, joined by ", "; sizes as "4.00 KB"),
// its --csv (the same widths, raw numbers), and JSON (one object per report on one line).
// Plain values, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::catalog::report {

struct Cell {
  std::string text;     // as the text rendering shows it
  std::string raw;      // as --csv and JSON show it
  bool number = false;  // JSON: a number, not a string
};

struct Column {
  std::string name;
  int text_width = 0;
  int csv_width = 0;
};

struct Table {
  std::string name;                    // the report's name in JSON ("user-info")
  std::string preamble;                // lines before the header ("filter path: ...")
  std::vector<Column> columns;
  bool ranked = false;                 // a first "rank" column (1, 2, ...)
  std::vector<std::vector<Cell>> rows;
  std::string footer;                  // "Total: ..." after an empty line (not with --no-header)
};

enum class TableFormat { kText, kCsv, kJson };

std::string Render(const Table& table, TableFormat format, bool header);

// Cells as Robinhood writes them.
Cell TextCell(std::string text);
Cell CountCell(uint64_t n);
Cell IntCell(int64_t n);
// Bytes: "1023", "4.00 KB", "1.50 MB" (Robinhood's FormatFileSize); raw: the number.
Cell SizeCell(uint64_t bytes);
// A time as "%Y/%m/%d %T" in local time.
Cell DateCell(int64_t time_ns);
std::string FormatFileSize(uint64_t bytes);

// Robinhood's column widths (text, csv).
Column PathColumn(std::string name = "path");   // 40, 40
Column NameColumn(std::string name);            // 10, 10 (user, group, type: 8)
Column CountColumn(std::string name = "count"); // 10, 10
Column SizeColumn(std::string name);            // 10, 15
Column DateColumn(std::string name);            // 20, 20

}  // namespace fathom::catalog::report
