#include "bus/path_selection.h"

namespace fathom::bus::internal {

PathSelection::PathSelection(std::string prefix, bool recursive, uint32_t kinds)
    : prefix_(std::move(prefix)), recursive_(recursive), kinds_(kinds | kind::kAlwaysDelivered) {
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
}

bool PathSelection::Matches(const Event& event) const {
  if ((event.mask & kinds_) == 0) return false;
  if (event.mask & kind::kAlwaysDelivered) return true;
  const std::string_view path = event.path;
  if (!PathUnder(path, prefix_)) return false;
  return recursive_ || path == prefix_ || path.find('/', prefix_.size() + 1) == std::string_view::npos;
}

}  // namespace fathom::bus::internal
