// event_feed.h — where `fathom catalog follow` reads fathom's event stream from: a store file
// (read while `fathom watch` or `fathom aggregate` writes it), an aggregator, or a NATS
// JetStream bus. Events come in id order, each once, after the id the catalog applied last.
//
// A feed is used from one thread; Stop() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fathom/client.h"
#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::catalog {

struct FeedBatch {
  std::vector<Event> events;
  // Events between the last one handed out and these are gone from the stream (a store's
  // retention dropped them before the catalog applied them): what they said is unknown.
  bool lost_before = false;
};

class EventFeed {
 public:
  virtual ~EventFeed() = default;
  // Replaces `out` with the next events (at most `max`), waiting up to `timeout` for the first.
  virtual Status Next(FeedBatch& out, size_t max, std::chrono::milliseconds timeout) = 0;
  // Every event through `id` is committed to the catalog.
  virtual Status Acknowledge(uint64_t id) = 0;
  // The newest id the stream holds, where it can tell (0 otherwise): for the lag.
  virtual uint64_t NewestId() = 0;
  virtual void Stop() = 0;
};

// The events of the store file `path` after id `since`.
Result<std::unique_ptr<EventFeed>> OpenStoreFeed(const std::string& path, uint64_t since);
// The events of an aggregator or bus (`options.endpoint`) after id `since`.
Result<std::unique_ptr<EventFeed>> OpenSubscriberFeed(SubscribeOptions options, uint64_t since);

}  // namespace fathom::catalog
