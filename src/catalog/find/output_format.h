// output_format.h — how find prints an entry: -printf formats (GNU's directives, flags,
// widths and backslash escapes) and -ls lines (GNU's exact columns and name quoting).
//
// Contract: PrintfFormat::Compile checks a format once (an error for a '%' at its end or a
// directive the catalog cannot answer, a warning, as GNU prints it, for an unknown directive
// or escape, which are then printed as written); Render appends one entry's expansion.
// Times are local time, as GNU prints them. Value types; Render reads the context's name
// cache (one thread at a time).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/find/expression.h"
#include "fathom/status.h"

namespace fathom::catalog::find {

class PrintfFormat {
 public:
  static Result<PrintfFormat> Compile(std::string_view format, std::string_view option,
                                      std::vector<std::string>* warnings);
  void Render(const Entry& entry, EvalContext& ctx, std::string& out) const;

 private:
  struct Piece {
    std::string text;        // literal text, or the printf flags/width/precision of a directive
    char directive = 0;      // 0: literal; else the letter after '%'
    char time_letter = 0;    // %A, %C, %T: the strftime letter (or '@', '+')
    bool stop = false;       // \c: stop printing this format here
  };
  std::vector<Piece> pieces_;
};

// One -ls line (with its '\n') for `entry`; `now_ns` decides between "HH:MM" and the year.
std::string LsLine(const Entry& entry, EvalContext& ctx, int64_t now_ns);

// The part of `path` -name and %f look at: after the last '/' that is not trailing ("/" for
// a path of slashes only); `strip_trailing` also drops trailing slashes (-name does).
std::string_view BaseName(std::string_view path, bool strip_trailing);

}  // namespace fathom::catalog::find
