// replay_worker.cpp — bounded replay slices from the store.
#include "aggregator/replay_worker.h"

#include <algorithm>

#include "store/event_chunk.h"

namespace fathom::aggregator {

void ReplayWorker::Request(ReplayRequest request) {
  std::lock_guard lock(mu_);
  requests_.push_back(std::move(request));
  wake_.notify_one();
}

void ReplayWorker::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  wake_.notify_all();
}

void ReplayWorker::Run() {
  for (;;) {
    ReplayRequest request;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return closed_ || !requests_.empty(); });
      if (closed_) return;
      request = std::move(requests_.front());
      requests_.pop_front();
    }
    out_.Post(Slice(request));
  }
}

ReplayResult ReplayWorker::Slice(const ReplayRequest& request) {
  ReplayResult result;
  result.session = request.session;
  result.after_id = request.after_id;
  // A filter that selects everything takes max_events ids; others may need to look further.
  const uint64_t scan = request.filter.MatchesEverything() ? request.budget : kMaxScan;
  const uint64_t end = std::min(request.upto, request.after_id + std::max<uint64_t>(scan, 1));
  std::vector<EncodedChunk> chunks;
  uint64_t first_id = 0, first_held = 0;
  Status damaged;
  uint64_t next_id = 0;  // the id the next chunk must start at (0: any, for the first)
  result.status = reader_->ReplayChunks(request.after_id, [&](const StoredChunk& c) {
    if (c.first_id > end) return false;
    // Only a recovered store has gaps (ids it lost): a slice ends at one, and the next
    // request, starting in the gap, reports it gone.
    if (next_id != 0 && c.first_id != next_id) return false;
    auto checked = store::ScanChunk(*c.chunk.data);
    if (!checked.ok() || checked.value().count != c.chunk.count) {
      damaged = Status::Error("the stored chunk of ids " + std::to_string(c.first_id) + ".." +
                                    std::to_string(c.first_id + c.chunk.count - 1) +
                                    " is damaged: the store file is corrupt");
      return false;
    }
    if (chunks.empty()) first_id = c.first_id;
    first_held = c.first_held;
    next_id = c.first_id + c.chunk.count;
    chunks.push_back(c.chunk);
    return c.first_id + c.chunk.count - 1 < end;
  });
  if (result.status.ok()) result.status = damaged;
  if (!result.status.ok() || end <= request.after_id) return result;
  const uint64_t expected = request.after_id + 1;
  const uint64_t held_from = chunks.empty() ? request.upto + 1 : std::max(first_id, first_held);
  if (held_from > expected) {
    result.gone = {expected, std::min(held_from - 1, request.upto)};
    auto first = reader_->FirstId();
    result.first_held = first.ok() ? first.value() : 0;
    // Past a gap of a recovered store, the next id held is above the oldest one.
    if (first.ok() && !chunks.empty()) result.first_held = std::max(result.first_held, held_from);
    return result;
  }
  EventRing slice(SIZE_MAX, first_id - 1);
  slice.Append(first_id, std::move(chunks));
  const uint64_t last = std::min(end, slice.last_id());
  uint64_t after = request.after_id;
  size_t sent = 0;
  while (after < last && sent < request.budget) {
    auto message = BuildEventsMessage(slice, after, last,
                                      std::min(request.max_events, request.budget - sent),
                                      request.filter);
    if (!message) {
      result.status = Status::Error("a stored chunk after id " + std::to_string(after) +
                                    " does not decode: the store file is corrupt");
      result.messages.clear();
      break;
    }
    after = message->through_id;
    sent += message->count;
    result.messages.push_back(std::move(*message));
  }
  return result;
}

}  // namespace fathom::aggregator
