#include "catalog/follow/stream_follower.h"

#include <spdlog/spdlog.h>

namespace fathom::catalog {

Status FollowStream(EventFeed& feed, EventApplier& applier, const FollowLimits& limits,
                    const FollowCallbacks& callbacks, const std::atomic<bool>& stop) {
  FeedBatch batch;
  uint64_t applied = 0;
  uint64_t last_applied = 0;
  auto last_settle = std::chrono::steady_clock::now();
  while (!stop.load()) {
    size_t room = limits.max_batch;
    if (limits.max_events > 0) room = std::min<uint64_t>(room, limits.max_events - applied);
    FATHOM_RETURN_IF_ERROR(feed.Next(batch, room, limits.wait));
    if (batch.lost_before) {
      spdlog::warn(
          "catalog: events were removed from the stream before the catalog applied "
          "them; scanning every root again");
      FATHOM_RETURN_IF_ERROR(callbacks.rescan_roots());
    }
    if (batch.events.empty()) {
      // With --until-idle the stream's writer is done; else it may still store a rename's
      // second half moments after the first.
      FATHOM_RETURN_IF_ERROR(applier.Flush(limits.until_idle ? std::chrono::milliseconds(0)
                                                             : std::chrono::seconds(2)));
      // Caught up: the directories read while the stream lagged are compared with the live
      // ones (live, at most every settle_every).
      const auto now = std::chrono::steady_clock::now();
      if (limits.until_idle || now - last_settle >= limits.settle_every) {
        const uint64_t settled = applier.counters().settled;
        FATHOM_RETURN_IF_ERROR(applier.Settle());
        last_settle = now;
        if (callbacks.committed && applier.counters().settled != settled) {
          callbacks.committed(applier.counters(), last_applied);
        }
      }
      if (limits.until_idle) break;
      continue;
    }
    FATHOM_RETURN_IF_ERROR(applier.Apply(batch.events));
    const uint64_t last = batch.events.back().id;
    last_applied = last;
    FATHOM_RETURN_IF_ERROR(feed.Acknowledge(last));
    applied += batch.events.size();
    if (callbacks.committed) callbacks.committed(applier.counters(), last);
    if (limits.max_events > 0 && applied >= limits.max_events) break;
  }
  return Status::Ok();
}

}  // namespace fathom::catalog
