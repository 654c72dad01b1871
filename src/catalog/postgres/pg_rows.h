// pg_rows.h — the catalog's rows as PostgreSQL parameters and result columns (binary, no
// quoting): attributes of entries and removed (backend_columns.h's order), entries, names,
// subtree totals, and "$1, $2, ..." lists. Free functions, any thread.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog_backend.h"
#include "catalog/postgres/pg_values.h"

namespace fathom::catalog::pg {

// `n` bigint parameters.
inline std::vector<Type> Ints(int n) { return std::vector<Type>(static_cast<size_t>(n), Type::kInt); }

// The parameter types of the attribute columns, in order.
std::vector<Type> AttrTypes();
// Appends `a` as kAttrColumns parameters; they refer to `a`'s bytes and to `osts`, which holds
// the OST list's text: both must outlive the call they are passed to.
void AddAttrParams(std::vector<Param>& params, const Attrs& a, std::string& osts);

Attrs ReadAttrs(const Rows& rows, int row, int first);
// A row of kEntryColumns starting at column `first`.
EntryRow ReadEntry(const Rows& rows, int row, int first);
// parent, name, id, gen from column 0.
NameRow ReadName(const Rows& rows, int row);
// files, dirs, symlinks, others, size, blocks, max_mtime from column `first`.
Totals ReadTotals(const Rows& rows, int row, int first);

// "$first, $first+1, ..." (n of them).
std::string Placeholders(int first, int n);

}  // namespace fathom::catalog::pg
