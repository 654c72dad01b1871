#include "store/chunk_rows.h"

#include <string>

#include "store/checksum.h"

namespace fathom::store {

Status InsertChunkRows(const Connection& db, Statement& insert, uint64_t first_id,
                       std::span<const EncodedChunk> chunks, std::string_view what) {
  for (const auto& c : chunks) {
    if (c.count == 0 || !c.data) {
      return Status::Error(std::string(what) + ": an encoded chunk holds no events; a caller's "
                           "error, nothing was stored");
    }
  }
  for (const auto& c : chunks) {
    insert.BindInt(1, static_cast<int64_t>(first_id));
    insert.BindInt(2, static_cast<int64_t>(first_id + c.count - 1));
    insert.BindInt(3, c.min_ts);
    insert.BindInt(4, c.max_ts);
    insert.BindBlob(5, *c.data);
    insert.BindInt(6, Crc32c(*c.data));
    FATHOM_RETURN_IF_ERROR(db.StepDone(insert, what));
    first_id += c.count;
  }
  return Status::Ok();
}

}  // namespace fathom::store
