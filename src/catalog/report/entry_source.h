// entry_source.h — the objects a report reads: through the catalog's indexes (Select), or,
// under rbh-report's --filter-path GLOB, by a walk from the pattern's longest literal
// directory. Each object is handed once, at its first name met.
//
// The path filter is Robinhood's: the glob ('*' any characters, '/' included; '?' one) must
// match the whole path or a leading part of it that ends at a '/' (the entry itself or
// anything below a matching path). Ownership: reads `catalog` during the call; one thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog::report {

// Whether `path` matches `glob` or lies below a path that does.
bool PathFilterMatches(std::string_view glob, std::string_view path);

// rbh-report's line before a filtered report's header: "filter path: GLOB\n" ("" for none).
std::string PathFilterPreamble(std::string_view glob);

// Hands every object matching `selection` (and `path_glob` unless empty) once, with the
// path of its first name, until `fn` returns false.
Status ForEachObject(Catalog& catalog, const Selection& selection, const std::string& path_glob,
                     const std::function<bool(const Visit&)>& fn);

}  // namespace fathom::catalog::report
