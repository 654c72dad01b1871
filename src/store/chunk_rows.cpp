#include "store/chunk_rows.h"

#include <algorithm>

#include "store/event_chunk.h"

namespace fathom::store {

Status InsertChunkRows(const Connection& db, Statement& insert, std::span<const Event> events,
                       std::string& blob, std::string_view what) {
  while (!events.empty()) {
    const auto chunk = events.first(std::min(events.size(), kMaxChunkEvents));
    events = events.subspan(chunk.size());
    blob.clear();
    EncodeChunk(chunk, blob);
    const auto [min_e, max_e] =
        std::minmax_element(chunk.begin(), chunk.end(),
                            [](const Event& a, const Event& b) { return a.ts_ns < b.ts_ns; });
    insert.BindInt(1, static_cast<int64_t>(chunk.front().id));
    insert.BindInt(2, static_cast<int64_t>(chunk.back().id));
    insert.BindInt(3, min_e->ts_ns);
    insert.BindInt(4, max_e->ts_ns);
    insert.BindBlob(5, blob);
    FATHOM_RETURN_IF_ERROR(db.StepDone(insert, what));
  }
  return Status::Ok();
}

}  // namespace fathom::store
