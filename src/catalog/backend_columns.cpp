#include "catalog/backend_columns.h"

#include <charconv>

namespace fathom::catalog {

std::string Qualified(std::string_view prefix, std::string_view columns) {
  std::string text(prefix);
  for (char c : columns) {
    text.push_back(c);
    if (c == ' ') text.append(prefix);
  }
  return text;
}

std::vector<std::pair<const char*, int64_t>> SelectionBounds(const Selection& sel) {
  std::vector<std::pair<const char*, int64_t>> bounds;
  if (sel.uid) bounds.emplace_back("uid =", *sel.uid);
  if (sel.gid) bounds.emplace_back("gid =", *sel.gid);
  if (sel.min_size) bounds.emplace_back("size >=", *sel.min_size);
  if (sel.max_size) bounds.emplace_back("size <=", *sel.max_size);
  if (sel.min_mtime_ns) bounds.emplace_back("mtime >=", *sel.min_mtime_ns);
  if (sel.max_mtime_ns) bounds.emplace_back("mtime <=", *sel.max_mtime_ns);
  if (sel.type) bounds.emplace_back("(mode & 61440) =", *sel.type);
  return bounds;
}

std::string JoinOsts(const std::vector<uint32_t>& osts) {
  std::string text;
  for (uint32_t ost : osts) {
    if (!text.empty()) text.push_back(',');
    text += std::to_string(ost);
  }
  return text;
}

std::vector<uint32_t> SplitOsts(std::string_view text) {
  std::vector<uint32_t> osts;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    uint32_t ost = 0;
    auto [next, ec] = std::from_chars(p, end, ost);
    if (ec != std::errc()) break;
    osts.push_back(ost);
    p = next < end ? next + 1 : next;
  }
  return osts;
}

}  // namespace fathom::catalog
