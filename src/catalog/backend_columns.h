// backend_columns.h — what the backends share about the catalog's columns: the attribute
// columns of entries and removed in the order both backends bind and read them, and the text
// form of a Lustre OST list ("0,3,7"), and a selection's bounds as conditions on entries'
// columns. Free functions, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fathom/catalog.h"

namespace fathom::catalog {

inline constexpr int kAttrColumns = 19;
inline constexpr const char* kAttrs =
    "dev, ino, mode, uid, gid, nlink, size, blocks, atime, mtime, ctime, symlink, projid, fid,"
    " mdt, stripe_count, stripe_size, pool, osts";
inline constexpr const char* kEntryColumns =
    "id, dev, ino, mode, uid, gid, nlink, size, blocks, atime, mtime, ctime, symlink, projid, "
    "fid, mdt, stripe_count, stripe_size, pool, osts, seen, gen";

// "p.a, p.b" of "a, b".
std::string Qualified(std::string_view prefix, std::string_view columns);

// The bounds of `selection` on entries' columns, each a condition left open for its value
// ("uid =", "size >=", ...) with that value; the backend adds its own placeholder.
std::vector<std::pair<const char*, int64_t>> SelectionBounds(const Selection& selection);

std::string JoinOsts(const std::vector<uint32_t>& osts);
std::vector<uint32_t> SplitOsts(std::string_view text);

}  // namespace fathom::catalog
