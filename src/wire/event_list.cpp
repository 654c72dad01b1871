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

// Appends one chunk: its byte length, then the chunk.
template <typename Span>
void EncodeChunkOf(Span events, std::string& out) {
  const size_t start = out.size();
  store::EncodeChunk(events, out);
  std::string length;
  PutVarint(length, out.size() - start);
  out.insert(start, length);
}

// Appends `events` as chunks, each full but the last.
template <typename Span>
void EncodeChunksOf(Span events, std::string& out) {
  for (size_t begin = 0; begin < events.size(); begin += store::kMaxChunkEvents) {
    EncodeChunkOf(events.subspan(begin, std::min(store::kMaxChunkEvents, events.size() - begin)),
                  out);
  }
}

// Writes ids as the list does: the first, then increments.
class IdWriter {
 public:
  explicit IdWriter(std::string& out) : out_(out) {}
  void Put(uint64_t id) {
    PutVarint(out_, first_ ? id : id - last_);
    first_ = false;
    last_ = id;
  }
  // `count` contiguous ids from `id`.
  void PutRange(uint64_t id, size_t count) {
    if (count == 0) return;
    Put(id);
    out_.append(count - 1, '\x01');
    last_ = id + count - 1;
  }

 private:
  std::string& out_;
  bool first_ = true;
  uint64_t last_ = 0;
};

}  // namespace

void EncodeEventList(std::span<const Event> events, bool with_ids, std::string& out) {
  PutVarint(out, events.size());
  if (with_ids) {
    IdWriter ids(out);
    for (const auto& e : events) ids.Put(e.id);
  }
  EncodeChunksOf(events, out);
}

void EncodeEventList(std::span<const EventRun> runs, bool with_ids, std::string& out) {
  size_t count = 0;
  for (const auto& r : runs) count += r.chunk.empty() ? r.events.size() : r.count;
  PutVarint(out, count);
  if (with_ids) {
    IdWriter ids(out);
    for (const auto& r : runs) {
      if (!r.chunk.empty()) {
        ids.PutRange(r.first_id, r.count);
      } else {
        for (const Event* e : r.events) ids.Put(e->id);
      }
    }
  }
  for (const auto& r : runs) {
    if (r.chunk.empty()) {
      EncodeChunksOf(r.events, out);
    } else {
      PutString(out, r.chunk);
    }
  }
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

  if (chunks == nullptr) out.reserve(n);
  size_t decoded_events = 0;  // or scanned
  size_t string_bytes = 0;
  bool too_large = false;
  for (size_t chunk = 0; decoded_events < n; ++chunk) {
    const size_t most = std::min(store::kMaxChunkEvents, n - decoded_events);
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
    const size_t before = decoded_events;
    Status status;
    if (chunks != nullptr) {
      auto summary = store::ScanChunk(blob);
      status = summary.ok() ? Status::Ok() : summary.status();
      if (summary.ok() && summary->kindless > 0) {
        return reader.Fail(chunk_name + " holds " + std::to_string(summary->kindless) +
                           " events of no kind (a mask without any bit of kind::kAll); every "
                           "event a collector sends must report one");
      }
      if (summary.ok()) {
        decoded_events += summary->count;
        string_bytes += summary->string_bytes;
        too_large = string_bytes > kMaxDecodedStringBytes;
        chunks->push_back({std::make_shared<const std::string>(blob), static_cast<uint32_t>(want),
                           summary->min_ts, summary->max_ts});
      }
    } else {
      status = store::DecodeChunk(blob, 0, [&](const Event& e) {
        string_bytes += StringBytes(e);
        if (string_bytes > kMaxDecodedStringBytes) {
          too_large = true;
          return false;
        }
        out.push_back(e);
        out.back().id = with_ids ? ids[out.size() - 1] : 0;
        ++decoded_events;
        return true;
      });
    }
    if (too_large) {
      return reader.Fail("the strings of events 0.." + std::to_string(decoded_events) +
                         " exceed " + std::to_string(kMaxDecodedStringBytes) + " bytes");
    }
    if (!status.ok()) {
      if (chunks != nullptr) return reader.Fail(chunk_name + " is malformed");
      if (decoded_events - before == want) {
        return reader.Fail(chunk_name + " has trailing bytes after its " +
                           std::to_string(want) + " events");
      }
      return reader.Fail("event " + std::to_string(decoded_events) + " (in " + chunk_name +
                         ") is malformed");
    }
  }
  return Status::Ok();
}

}  // namespace fathom::wire
