// stream_follower.h — the loop of `fathom catalog follow`: reads a feed, applies each batch to
// the catalog (which records the last id applied in the same transaction), and only then
// acknowledges it to the feed.
//
// Runs on the calling thread; `stop` may be set from any thread (the feed's Stop() wakes it).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "catalog/follow/event_applier.h"
#include "catalog/follow/event_feed.h"
#include "fathom/status.h"

namespace fathom::catalog {

struct FollowLimits {
  size_t max_batch = 8192;          // events per transaction, at most
  uint64_t max_events = 0;          // stop after applying this many (0: no limit)
  bool until_idle = false;          // stop once the feed has nothing more
  std::chrono::milliseconds wait{500};  // how long one read waits for events
  // Once caught up, directories read while the stream lagged are settled at most this often.
  std::chrono::milliseconds settle_every{2000};
};

struct FollowCallbacks {
  // Every root scanned again: events were lost before the catalog applied them.
  std::function<Status()> rescan_roots;
  // After each committed batch (for progress and lag).
  std::function<void(const ApplyCounters&, uint64_t last_applied)> committed;
};

Status FollowStream(EventFeed& feed, EventApplier& applier, const FollowLimits& limits,
                    const FollowCallbacks& callbacks, const std::atomic<bool>& stop);

}  // namespace fathom::catalog
