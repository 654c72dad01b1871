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

// The events of one commit as chunks: chunks of kMinChunkKept events or more as they came,
// the events of smaller ones decoded and encoded again together, in fuller chunks.
class ChunkPlan {
 public:
  // Adds a batch's chunks in order; nothing is added when one of them does not decode.
  Status AddBatch(const std::vector<EncodedChunk>& chunks) {
    for (const auto& c : chunks) {
      if (Kept(c)) continue;
      Status status = store::DecodeChunk(*c.data, 0, [&](const Event& e) {
        scratch_.push_back(e);
        return true;
      });
      if (!status.ok()) {
        scratch_.clear();
        return status;
      }
    }
    size_t next = 0;  // of scratch_
    for (const auto& c : chunks) {
      if (Kept(c)) {
        EncodeLoose();
        chunks_.push_back(c);
        continue;
      }
      for (size_t i = 0; i < c.count; ++i) {
        loose_.push_back(std::move(scratch_[next++]));
        if (loose_.size() == store::kMaxChunkEvents) EncodeLoose();
      }
    }
    scratch_.clear();
    return Status::Ok();
  }
  std::vector<EncodedChunk> Finish() {
    EncodeLoose();
    return std::move(chunks_);
  }

 private:
  static bool Kept(const EncodedChunk& c) {
    return c.count >= kMinChunkKept && store::ChunkInCurrentLayout(*c.data);
  }
  void EncodeLoose() {
    if (loose_.empty()) return;
    chunks_.push_back(store::MakeChunk(loose_));
    loose_.clear();
  }

  std::vector<EncodedChunk> chunks_;
  std::vector<Event> loose_;    // decoded, not yet in chunks_ (fewer than kMaxChunkEvents)
  std::vector<Event> scratch_;  // one batch's small chunks, decoded
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
    size_t begin, end;  // the batch's events within the round's commit
  };
  std::vector<Reply> replies;
  std::vector<Accepted> accepted;
  std::vector<std::pair<size_t, std::string>> hellos;  // reply index, collector
  std::map<std::string, uint64_t> tentative;           // positions once this round commits
};

void CommitWorker::Round(std::vector<CommitItem>& items) {
  Pending p;
  size_t merged = 0;  // events accepted into this round's commit
  ChunkPlan plan;
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
    auto& [peer, batch, batch_chunks, events] = std::get<BatchItem>(item);
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
      Counters::Add(counters_.duplicate_events, events);
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
    } else if (Status added = plan.AddBatch(batch_chunks); !added.ok()) {
      // The network thread checked the chunks as decoding does: this cannot happen.
      spdlog::error("a checked batch of collector {} does not decode: {}", batch.collector,
                    added.message());
      reply.error = true;
      reply.frame = ErrorFrame(wire::ErrorCode::kMalformed, stored,
                               "the batch's events do not decode: " + added.message());
    } else {
      p.accepted.push_back({p.replies.size(), batch.collector, batch.to_position, merged,
                            merged + events});
      merged += events;
      p.tentative[batch.collector] = batch.to_position;
    }
    p.replies.push_back(std::move(reply));
  }

  bool committed = true;
  uint64_t first_id = 0;
  std::vector<EncodedChunk> chunks = plan.Finish();
  if (!p.tentative.empty()) {
    std::vector<SourcePosition> positions;
    positions.reserve(p.tentative.size());
    for (const auto& [collector, position] : p.tentative) positions.push_back({collector, position});
    const auto start = Clock::now();
    auto appended = store_->AppendChunks(chunks, positions);
    const auto us = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
    if (appended.ok()) {
      first_id = appended.value();
      Counters::Add(counters_.commits, 1);
      Counters::Add(counters_.commit_us_total, us);
      Counters::Set(counters_.commit_us_last, us);
      if (us > Counters::Get(counters_.commit_us_max)) Counters::Set(counters_.commit_us_max, us);
      Counters::Add(counters_.events_committed, merged);
      Counters::Add(counters_.batches_committed, p.accepted.size());
      if (merged > 0) Counters::Set(counters_.last_id, first_id + merged - 1);
      for (const auto& [collector, position] : p.tentative) {
        positions_[collector] = position;
        unavailable_.erase(collector);
      }
      for (const auto& a : p.accepted) {
        const uint64_t first = a.begin < a.end ? first_id + a.begin : 0;
        const uint64_t last = a.begin < a.end ? first_id + a.end - 1 : 0;
        p.replies[a.index].frame = wire::Encode(wire::BatchAck{a.to, first, last});
      }
    } else {
      committed = false;
      const Status& status = appended.status();
      Counters::Add(counters_.commit_failures, 1);
      spdlog::warn("commit of {} events from {} batches failed, answering Unavailable: {}",
                   merged, p.accepted.size(), status.message());
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
  CommitOutput output{std::move(p.replies), 0, {}};
  if (committed && merged > 0) {
    output.first_id = first_id;
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
