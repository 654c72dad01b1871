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
