#include "catalog/follow/stream_follower.h"

#include <spdlog/spdlog.h>

namespace fathom::catalog {

Status FollowStream(EventFeed& feed, EventApplier& applier, const FollowLimits& limits,
                    const FollowCallbacks& callbacks, const std::atomic<bool>& stop) {
  FeedBatch batch;
  uint64_t applied = 0;
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
      if (limits.until_idle) break;
      continue;
    }
    FATHOM_RETURN_IF_ERROR(applier.Apply(batch.events));
    const uint64_t last = batch.events.back().id;
    FATHOM_RETURN_IF_ERROR(feed.Acknowledge(last));
    applied += batch.events.size();
    if (callbacks.committed) callbacks.committed(applier.counters(), last);
    if (limits.max_events > 0 && applied >= limits.max_events) break;
  }
  return Status::Ok();
}

}  // namespace fathom::catalog
