#include "store/chunk_rows.h"

#include <algorithm>

#include "store/event_chunk.h"

namespace fathom::store {
namespace {

Status InsertRow(const Connection& db, Statement& insert, std::span<const Event> chunk,
                 std::string_view data, std::string_view what) {
  const auto [min_e, max_e] =
      std::minmax_element(chunk.begin(), chunk.end(),
                          [](const Event& a, const Event& b) { return a.ts_ns < b.ts_ns; });
  insert.BindInt(1, static_cast<int64_t>(chunk.front().id));
  insert.BindInt(2, static_cast<int64_t>(chunk.back().id));
  insert.BindInt(3, min_e->ts_ns);
  insert.BindInt(4, max_e->ts_ns);
  insert.BindBlob(5, data);
  return db.StepDone(insert, what);
}

}  // namespace

Status InsertChunkRows(const Connection& db, Statement& insert, std::span<const Event> events,
                       std::span<const EncodedChunk> chunks, std::string& blob,
                       std::string_view what) {
  if (!chunks.empty()) {
    size_t held = 0;
    for (const auto& c : chunks) {
      if (c.count == 0 || !c.data) {
        return Status::Error(std::string(what) + ": an encoded chunk holds no events; a caller's "
                             "error, nothing was stored");
      }
      held += c.count;
    }
    if (held != events.size()) {
      return Status::Error(std::string(what) + ": the encoded chunks hold " + std::to_string(held) +
                           " events, the batch " + std::to_string(events.size()) +
                           "; a caller's error, nothing was stored");
    }
    for (const auto& c : chunks) {
      FATHOM_RETURN_IF_ERROR(InsertRow(db, insert, events.first(c.count), *c.data, what));
      events = events.subspan(c.count);
    }
    return Status::Ok();
  }
  while (!events.empty()) {
    const auto chunk = events.first(std::min(events.size(), kMaxChunkEvents));
    events = events.subspan(chunk.size());
    blob.clear();
    EncodeChunk(chunk, blob);
    FATHOM_RETURN_IF_ERROR(InsertRow(db, insert, chunk, blob, what));
  }
  return Status::Ok();
}

}  // namespace fathom::store
