#include "wire/event_list.h"

#include <algorithm>
#include <memory>

#include "store/event_chunk.h"
#include "core/varint.h"
#include "wire/wire_messages.h"

namespace fathom::wire {
namespace {

// The fewest bytes one event takes in a chunk: eight one-byte varints.
constexpr size_t kMinEventBytes = 8;

size_t StringBytes(const Event& e) {
  return e.root.size() + e.path.size() + e.source.size() + e.attrs.size();
}

uint64_t IdOf(const Event& e) { return e.id; }
uint64_t IdOf(const Event* e) { return e->id; }

// Appends one chunk: its byte length, then the chunk.
template <typename Span>
void EncodeChunkOf(Span events, std::string& out) {
  const size_t start = out.size();
  store::EncodeChunk(events, out);
  std::string length;
  PutVarint(length, out.size() - start);
  out.insert(start, length);
}

template <typename Span>
void EncodeEventListOf(Span events, std::span<const ReadyChunk> ready, bool with_ids,
                       std::string& out) {
  PutVarint(out, events.size());
  if (with_ids && !events.empty()) {
    PutVarint(out, IdOf(events.front()));
    for (size_t i = 1; i < events.size(); ++i) PutVarint(out, IdOf(events[i]) - IdOf(events[i - 1]));
  }
  size_t begin = 0;
  auto encode_through = [&](size_t end) {
    while (begin < end) {
      const size_t n = std::min(store::kMaxChunkEvents, end - begin);
      EncodeChunkOf(events.subspan(begin, n), out);
      begin += n;
    }
  };
  for (const auto& r : ready) {
    encode_through(r.begin);
    PutString(out, r.chunk);
    begin = r.begin + r.count;
  }
  encode_through(events.size());
}

}  // namespace

void EncodeEventList(std::span<const Event> events, bool with_ids, std::string& out) {
  EncodeEventListOf(events, {}, with_ids, out);
}
void EncodeEventList(std::span<const Event* const> events, std::span<const ReadyChunk> ready,
                     bool with_ids, std::string& out) {
  EncodeEventListOf(events, ready, with_ids, out);
}

Status DecodeEventList(BodyReader& reader, bool with_ids, uint64_t after_id,
                       uint64_t through_id, std::vector<Event>& out,
                       std::vector<EncodedChunk>* chunks) {
  out.clear();
  if (chunks != nullptr) chunks->clear();
  uint64_t count = 0;
  FATHOM_RETURN_IF_ERROR(reader.U64("event count", count));
  if (count > kMaxBatchEvents) {
    return reader.Fail("event count " + std::to_string(count) + " exceeds " +
                       std::to_string(kMaxBatchEvents));
  }
  const size_t per_event = kMinEventBytes + (with_ids ? 1 : 0);
  if (count > reader.remaining() / per_event) {
    return reader.Fail("event count " + std::to_string(count) + " cannot fit in the " +
                       std::to_string(reader.remaining()) + " bytes left");
  }
  const auto n = static_cast<size_t>(count);

  std::vector<uint64_t> ids;
  if (with_ids && n > 0) {
    ids.resize(n);
    FATHOM_RETURN_IF_ERROR(reader.U64("first event id", ids[0]));
    if (ids[0] <= after_id || ids[0] > through_id) {
      return reader.Fail("event id " + std::to_string(ids[0]) + " lies outside (" +
                         std::to_string(after_id) + ", " + std::to_string(through_id) + "]");
    }
    for (size_t i = 1; i < n; ++i) {
      uint64_t step = 0;
      FATHOM_RETURN_IF_ERROR(reader.U64("event id increment", step));
      if (step == 0 || step > through_id - ids[i - 1]) {
        return reader.Fail("event id increment " + std::to_string(step) + " after id " +
                           std::to_string(ids[i - 1]) + " is zero or passes through_id " +
                           std::to_string(through_id));
      }
      ids[i] = ids[i - 1] + step;
    }
  }

  out.reserve(n);
  size_t string_bytes = 0;
  bool too_large = false;
  for (size_t chunk = 0; out.size() < n; ++chunk) {
    const size_t most = std::min(store::kMaxChunkEvents, n - out.size());
    const std::string chunk_name = "event chunk " + std::to_string(chunk);
    std::string_view blob;
    FATHOM_RETURN_IF_ERROR(reader.View(chunk_name + " length", blob));
    const auto held = store::ChunkEventCount(blob);
    if (!held || *held == 0 || *held > most) {
      return reader.Fail(chunk_name + " does not start with an event count of 1.." +
                         std::to_string(most) + " (the events left of the list, at most " +
                         std::to_string(store::kMaxChunkEvents) + ")");
    }
    const size_t want = *held;
    const size_t before = out.size();
    const Status decoded = store::DecodeChunk(blob, 0, [&](const Event& e) {
      string_bytes += StringBytes(e);
      if (string_bytes > kMaxDecodedStringBytes) {
        too_large = true;
        return false;
      }
      out.push_back(e);
      out.back().id = with_ids ? ids[out.size() - 1] : 0;
      return true;
    });
    if (too_large) {
      return reader.Fail("the strings of events 0.." + std::to_string(out.size()) +
                         " exceed " + std::to_string(kMaxDecodedStringBytes) + " bytes");
    }
    if (!decoded.ok()) {
      if (out.size() - before == want) {
        return reader.Fail(chunk_name + " has trailing bytes after its " +
                           std::to_string(want) + " events");
      }
      return reader.Fail("event " + std::to_string(out.size()) + " (in " + chunk_name +
                         ") is malformed");
    }
    if (chunks != nullptr) {
      chunks->push_back({std::make_shared<const std::string>(blob), static_cast<uint32_t>(want)});
    }
  }
  return Status::Ok();
}

}  // namespace fathom::wire
