// commit_worker.h — the commit thread: merges the queued batches of every collector into one
// store transaction with all their positions, then answers each request.
//
// Per collector it checks each batch against the stored position: from == stored commits,
// to <= stored is a duplicate (acknowledged with ids 0, 0, nothing stored), anything else is a
// PositionGap naming the stored position. A failed commit (disk full) answers Unavailable to
// every batch in it, stores nothing and leaves the positions as they were; later batches of
// those collectors also get Unavailable until one commits. Durable consumer positions are
// recorded in the same thread, and with purge_acknowledged the store is purged through the
// lowest of them. Results go to the network thread through a Mailbox. Run() on one thread.
// Chunks of kMinChunkKept events or more are stored as the collector encoded them (and so
// handed on); the events of smaller ones are decoded and encoded again together, in fewer,
// fuller chunks. Batches arrive as checked chunks (BatchItem), never as decoded events.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aggregator/commit_queue.h"
#include "aggregator/counters.h"
#include "aggregator/mailbox.h"
#include "fathom/store.h"

namespace fathom::aggregator {

struct Reply {
  std::string peer;
  std::string frame;
  bool error = false;
};

struct CommitOutput {
  std::vector<Reply> replies;
  uint64_t first_id = 0;             // of the committed events (0: none committed)
  std::vector<EncodedChunk> chunks;  // the committed events as stored, ids from first_id on
};

inline constexpr size_t kMinChunkKept = 256;

class CommitWorker {
 public:
  CommitWorker(std::unique_ptr<EventStore> store, CommitQueue& queue,
               Mailbox<CommitOutput>& out, Counters& counters, bool purge_acknowledged,
               const std::vector<std::pair<std::string, uint64_t>>& consumer_positions);

  // Until the queue is closed and drained.
  void Run();

 private:
  struct Pending;  // one round's requests and their answers
  void Round(std::vector<CommitItem>& items);
  Result<uint64_t> StoredPosition(const std::string& collector);
  void RecordConsumerPositions();

  std::unique_ptr<EventStore> store_;
  CommitQueue& queue_;
  Mailbox<CommitOutput>& out_;
  Counters& counters_;
  const bool purge_acknowledged_;
  std::map<std::string, uint64_t> positions_;       // committed position per collector
  std::set<std::string> unavailable_;               // collectors whose last commit failed
  std::map<std::string, uint64_t> consumers_;       // acknowledged id per durable name
  std::map<std::string, uint64_t> dirty_consumers_; // not yet recorded
  uint64_t purged_through_ = 0;
};

}  // namespace fathom::aggregator
