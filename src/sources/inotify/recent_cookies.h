// recent_cookies.h — a bounded set of the most recent kernel rename cookies.
//
// The inotify source remembers the cookies of directory MOVED_FROMs it had to report without
// their MOVED_TO (the other half was not in reach, or landed in a directory not watched yet),
// so that a MOVED_TO arriving later with one of them is known to come from inside the watched
// tree. Holds the last `capacity` cookies; older ones are forgotten. One thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_set>

namespace fathom::inotify_internal {

class RecentCookies {
 public:
  explicit RecentCookies(size_t capacity) : capacity_(capacity) {}

  void Add(uint32_t cookie) {
    if (!set_.insert(cookie).second) return;
    order_.push_back(cookie);
    if (order_.size() > capacity_) {
      set_.erase(order_.front());
      order_.pop_front();
    }
  }
  bool Contains(uint32_t cookie) const { return set_.contains(cookie); }

 private:
  size_t capacity_;
  std::deque<uint32_t> order_;
  std::unordered_set<uint32_t> set_;
};

}  // namespace fathom::inotify_internal
