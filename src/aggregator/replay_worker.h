// replay_worker.h — the replay thread: reads, from a read-only store connection, the chunks a
// consumer behind the in-memory ring needs and makes its next Events message from them, one
// bounded slice per request, in request order, so a replaying consumer never stalls commits or
// other consumers.
//
// A slice covers ids after after_id through at most upto in consecutive messages of at most
// `max_events` matching events each, `budget` events together (a consumer that takes
// everything: as many ids; others: at most kMaxScan ids, as filtering may skip most). The
// chunks are checked (store::ScanChunk) and the messages built as live ones are
// (events_message.h): stored chunks pass on as they are. When
// ids in the range are gone from the store (retention, purge), the answer names them instead.
// Request() from the network thread; results come back through a Mailbox. Run() on one thread
// until Close().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "aggregator/consumer_filter.h"
#include "aggregator/events_message.h"
#include "aggregator/mailbox.h"
#include "fathom/store.h"

namespace fathom::aggregator {

struct ReplayRequest {
  uint64_t session = 0;     // the consumer session's unique number
  uint64_t after_id = 0;
  uint64_t upto = 0;        // the slice ends at or before this id
  size_t max_events = 0;    // per message
  size_t budget = 0;        // events in all the slice's messages
  ConsumerFilter filter;
};

struct ReplayResult {
  uint64_t session = 0;
  uint64_t after_id = 0;
  std::vector<EventsMessage> messages;                // each continuing the previous
  std::optional<std::pair<uint64_t, uint64_t>> gone;  // ids no longer held
  uint64_t first_held = 0;                            // with `gone`
  Status status;                                      // a store failure
};

class ReplayWorker {
 public:
  static constexpr uint64_t kMaxScan = 1u << 16;

  ReplayWorker(std::unique_ptr<EventStore> reader, Mailbox<ReplayResult>& out)
      : reader_(std::move(reader)), out_(out) {}

  void Request(ReplayRequest request);
  void Close();
  void Run();

 private:
  ReplayResult Slice(const ReplayRequest& request);

  std::unique_ptr<EventStore> reader_;
  Mailbox<ReplayResult>& out_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<ReplayRequest> requests_;  // guarded by mu_; at most one per consumer
  bool closed_ = false;                 // guarded by mu_
};

}  // namespace fathom::aggregator
