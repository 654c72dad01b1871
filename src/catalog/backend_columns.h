// backend_columns.h — what the backends share about the catalog's columns: the attribute
// columns of entries and removed in the order both backends bind and read them, and the text
// form of a Lustre OST list ("0,3,7"). Free functions, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

std::string JoinOsts(const std::vector<uint32_t>& osts);
std::vector<uint32_t> SplitOsts(std::string_view text);

}  // namespace fathom::catalog
