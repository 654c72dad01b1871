// commit_worker.cpp — merged commits of collector batches, their answers, durable positions.
#include "aggregator/commit_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <span>

#include "store/event_chunk.h"

namespace fathom::aggregator {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxEventsPerCommit = 1u << 17;

std::string ErrorFrame(wire::ErrorCode code, uint64_t position, std::string message) {
  return wire::Encode(wire::Error{code, position, std::move(message)});
}

// The events of one commit as chunks: kept chunks as they came, the events between them
// encoded here.
class ChunkPlan {
 public:
  explicit ChunkPlan(const std::vector<Event>& merged) : merged_(merged) {}

  // The batch whose events were just appended to the merged events from index `begin`.
  void AddBatch(size_t begin, const std::vector<EncodedChunk>& chunks) {
    size_t held = 0;
    for (const auto& c : chunks) held += c.count;
    if (held != merged_.size() - begin) return;  // its events are encoded with the next run
    for (const auto& c : chunks) {
      if (c.count >= kMinChunkKept && store::ChunkInCurrentLayout(*c.data)) {
        EncodeThrough(begin);
        chunks_.push_back(c);
        encoded_ = begin + c.count;
      }
      begin += c.count;
    }
  }
  std::vector<EncodedChunk> Finish() {
    EncodeThrough(merged_.size());
    return std::move(chunks_);
  }

 private:
  void EncodeThrough(size_t end) {
    const std::span<const Event> events(merged_);
    while (encoded_ < end) {
      const size_t n = std::min(store::kMaxChunkEvents, end - encoded_);
      auto data = std::make_shared<std::string>();
      store::EncodeChunk(events.subspan(encoded_, n), *data);
      chunks_.push_back({std::move(data), static_cast<uint32_t>(n)});
      encoded_ += n;
    }
  }

  const std::vector<Event>& merged_;
  std::vector<EncodedChunk> chunks_;
  size_t encoded_ = 0;  // merged events before this are in chunks_
};

}  // namespace

CommitWorker::CommitWorker(std::unique_ptr<EventStore> store, CommitQueue& queue,
                           Mailbox<CommitOutput>& out, Counters& counters,
                           bool purge_acknowledged,
                           const std::vector<std::pair<std::string, uint64_t>>& consumer_positions)
    : store_(std::move(store)),
      queue_(queue),
      out_(out),
      counters_(counters),
      purge_acknowledged_(purge_acknowledged),
      consumers_(consumer_positions.begin(), consumer_positions.end()) {}

void CommitWorker::Run() {
  std::vector<CommitItem> items;
  while (queue_.Pop(items, kMaxEventsPerCommit)) {
    Round(items);
    items.clear();
  }
}

Result<uint64_t> CommitWorker::StoredPosition(const std::string& collector) {
  auto it = positions_.find(collector);
  if (it != positions_.end()) return it->second;
  FATHOM_ASSIGN_OR_RETURN(uint64_t position, store_->Position(collector));
  positions_.emplace(collector, position);
  return position;
}

// What one round answers: requests in arrival order, each answered once the commit is known.
struct CommitWorker::Pending {
  struct Accepted {
    size_t index;  // into replies
    std::string collector;
    uint64_t to;
    size_t begin, end;  // the batch's events within the merged batch
  };
  std::vector<Reply> replies;
  std::vector<Accepted> accepted;
  std::vector<std::pair<size_t, std::string>> hellos;  // reply index, collector
  std::map<std::string, uint64_t> tentative;           // positions once this round commits
};

void CommitWorker::Round(std::vector<CommitItem>& items) {
  Pending p;
  std::vector<Event> merged;
  size_t total = 0;
  for (const auto& item : items) {
    if (const auto* b = std::get_if<BatchItem>(&item)) total += b->batch.events.size();
  }
  merged.reserve(total);
  ChunkPlan plan(merged);
  for (auto& item : items) {
    if (auto* hello = std::get_if<HelloItem>(&item)) {
      p.hellos.emplace_back(p.replies.size(), hello->collector);
      p.replies.push_back({hello->peer, {}});
      continue;
    }
    if (auto* positions = std::get_if<ConsumerPositionsItem>(&item)) {
      for (auto& [name, id] : positions->positions) {
        uint64_t& known = consumers_[name];
        if (id > known) {
          known = id;
          dirty_consumers_[name] = id;
        }
      }
      continue;
    }
    auto& [peer, batch, batch_chunks] = std::get<BatchItem>(item);
    Reply reply{peer, {}};
    uint64_t stored = 0;
    if (auto t = p.tentative.find(batch.collector); t != p.tentative.end()) {
      stored = t->second;
    } else {
      auto position = StoredPosition(batch.collector);
      if (!position.ok()) {
        reply.frame = ErrorFrame(wire::ErrorCode::kUnavailable, 0,
                                 "the aggregator cannot read its store: " +
                                     position.status().message() + "; retry later");
        reply.error = true;
        p.replies.push_back(std::move(reply));
        continue;
      }
      stored = position.value();
    }
    if (batch.to_position <= stored) {
      Counters::Add(counters_.duplicate_events, batch.events.size());
      reply.frame = wire::Encode(wire::BatchAck{batch.to_position, 0, 0});
    } else if (batch.from_position != stored) {
      const bool unavailable = unavailable_.contains(batch.collector);
      reply.error = true;
      reply.frame =
          unavailable
              ? ErrorFrame(wire::ErrorCode::kUnavailable, stored,
                           "an earlier batch of collector " + batch.collector +
                               " could not be committed; retry from position " +
                               std::to_string(stored))
              : ErrorFrame(wire::ErrorCode::kPositionGap, stored,
                           "collector " + batch.collector + ": the batch starts after position " +
                               std::to_string(batch.from_position) + " but the store holds " +
                               std::to_string(stored) + "; resend from " + std::to_string(stored));
    } else {
      Pending::Accepted a{p.replies.size(), batch.collector, batch.to_position, merged.size(), 0};
      for (auto& e : batch.events) merged.push_back(std::move(e));
      a.end = merged.size();
      plan.AddBatch(a.begin, batch_chunks);
      p.tentative[batch.collector] = batch.to_position;
      p.accepted.push_back(std::move(a));
    }
    p.replies.push_back(std::move(reply));
  }

  bool committed = true;
  std::vector<EncodedChunk> chunks = plan.Finish();
  if (!p.tentative.empty()) {
    std::vector<SourcePosition> positions;
    positions.reserve(p.tentative.size());
    for (const auto& [collector, position] : p.tentative) positions.push_back({collector, position});
    const auto start = Clock::now();
    Status status = store_->Append(merged, chunks, positions);
    const auto us = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
    if (status.ok()) {
      Counters::Add(counters_.commits, 1);
      Counters::Add(counters_.commit_us_total, us);
      Counters::Set(counters_.commit_us_last, us);
      if (us > Counters::Get(counters_.commit_us_max)) Counters::Set(counters_.commit_us_max, us);
      Counters::Add(counters_.events_committed, merged.size());
      Counters::Add(counters_.batches_committed, p.accepted.size());
      if (!merged.empty()) Counters::Set(counters_.last_id, merged.back().id);
      for (const auto& [collector, position] : p.tentative) {
        positions_[collector] = position;
        unavailable_.erase(collector);
      }
      for (const auto& a : p.accepted) {
        const uint64_t first = a.begin < a.end ? merged[a.begin].id : 0;
        const uint64_t last = a.begin < a.end ? merged[a.end - 1].id : 0;
        p.replies[a.index].frame = wire::Encode(wire::BatchAck{a.to, first, last});
      }
    } else {
      committed = false;
      Counters::Add(counters_.commit_failures, 1);
      spdlog::warn("commit of {} events from {} batches failed, answering Unavailable: {}",
                   merged.size(), p.accepted.size(), status.message());
      for (const auto& a : p.accepted) {
        unavailable_.insert(a.collector);
        p.replies[a.index].error = true;
        p.replies[a.index].frame =
            ErrorFrame(wire::ErrorCode::kUnavailable, positions_[a.collector],
                       "the aggregator could not commit the batch (" + status.message() +
                           "); nothing of it was stored: retry later");
      }
    }
  }
  for (const auto& [index, collector] : p.hellos) {
    auto position = StoredPosition(collector);
    if (position.ok()) {
      p.replies[index].frame = wire::Encode(wire::Welcome{position.value()});
    } else {
      p.replies[index].error = true;
      p.replies[index].frame = ErrorFrame(
          wire::ErrorCode::kUnavailable, 0,
          "the aggregator cannot read its store: " + position.status().message() + "; retry later");
    }
  }
  RecordConsumerPositions();
  CommitOutput output{std::move(p.replies), {}, {}};
  if (committed) {
    output.committed = std::move(merged);
    output.chunks = std::move(chunks);
  }
  out_.Post(std::move(output));
}

void CommitWorker::RecordConsumerPositions() {
  if (dirty_consumers_.empty()) return;
  for (auto it = dirty_consumers_.begin(); it != dirty_consumers_.end();) {
    Status status = store_->SetConsumerPosition(it->first, it->second);
    if (!status.ok()) {
      spdlog::warn("could not record consumer {}'s position {}: {}", it->first, it->second,
                   status.message());
      return;  // kept dirty: tried again after the next request
    }
    it = dirty_consumers_.erase(it);
  }
  if (!purge_acknowledged_ || consumers_.empty()) return;
  uint64_t through = UINT64_MAX;
  for (const auto& [name, id] : consumers_) through = std::min(through, id);
  if (through <= purged_through_) return;
  Status status = store_->PurgeThrough(through);
  if (!status.ok()) {
    spdlog::warn("could not purge acknowledged events through id {}: {}", through,
                 status.message());
    return;
  }
  spdlog::debug("purged events through id {}, acknowledged by every durable consumer", through);
  purged_through_ = through;
}

}  // namespace fathom::aggregator
