// parser.h — GNU find's command line: starting points, then an expression of tests,
// actions, options and operators (! -not, -a -and, -o -or, ',', parentheses) with GNU's
// precedence (! over -a over -o over ',') and -a implied between adjacent primaries; -print
// added when there is no action (-prune and -quit are not actions for that rule).
//
// Contract: Parse() checks everything before anything runs: a bad size, mode, number,
// regex, date, unknown user or predicate, a missing argument or unbalanced parentheses is a
// Status whose message names the option and the fix. Files named by -fprint and friends
// are created here (as GNU does). Reference files (-newer, -samefile) are looked up through
// ParseEnvironment::reference. fathom's extras (-count, -sort, -rsort, -limit, -fid, -ost,
// -pool, -mdt) are recognized only by their own names. One thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/find/expression.h"
#include "core/account_names.h"
#include "fathom/catalog.h"
#include "fathom/policy.h"
#include "fathom/status.h"

namespace fathom::catalog::find {

struct ParseEnvironment {
  int64_t now_ns = 0;      // the reference time: when the run started
  NameCache* names = nullptr;
  // The attributes of a reference file named on the command line (as given).
  std::function<Result<Attrs>(std::string_view path)> reference;
  // The file classes -class names (nullptr: none were given) and where they came from.
  const policy::FileClasses* classes = nullptr;
  std::string classes_source;
  // Opens a file for -fprint, -fprint0, -fprintf, -fls (truncated, created).
  std::function<Result<std::shared_ptr<std::ostream>>(const std::string& path)> open_output;
};

// args: everything after "find" (starting points and expression). Warnings (GNU's, for
// unknown -printf directives and escapes) are appended to `warnings`.
Result<Expression> Parse(const std::vector<std::string>& args, const ParseEnvironment& env,
                         std::vector<std::string>* warnings);

}  // namespace fathom::catalog::find
