#include "bus/path_selection.h"

namespace fathom::bus::internal {

PathSelection::PathSelection(std::string prefix, bool recursive, uint32_t kinds)
    : prefix_(std::move(prefix)), recursive_(recursive), kinds_(kinds | kind::kAlwaysDelivered) {
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
}

bool PathSelection::Matches(const Event& event) const {
  if ((event.mask & kinds_) == 0) return false;
  if (event.mask & kind::kAlwaysDelivered) return true;
  return PathSelected(event.path, prefix_, recursive_);
}

}  // namespace fathom::bus::internal
