// event_chunk.h — many events with contiguous ids encoded into one compact blob.
//
// The store keeps events many to a row: one SQLite row per chunk of up to kMaxChunkEvents
// events, because the per-row cost of SQLite (about a microsecond of CPU) dominated appends.
// A chunk does not hold ids: they are first_id .. first_id + count - 1, kept in the row.
// Encoding (all integers LEB128 varints): count; then per event: ts as a zig-zag delta from
// the previous event's ts, mask, cookie, root and source as indexes into a string table built
// as the chunk goes (index == table size introduces a new string: length + bytes), path as the
// length of the prefix shared with the previous path + length + the rest, attrs as length +
// bytes. Decoding checks every length against the blob and fails on damage, never reading
// outside it. Pure functions; no threads, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::store {

inline constexpr size_t kMaxChunkEvents = 4096;

// Appends the encoding of `events` (whose ids are ignored) to `out`; the second form encodes
// the events pointed to, in that order (no copies of scattered events).
void EncodeChunk(std::span<const Event> events, std::string& out);
void EncodeChunk(std::span<const Event* const> events, std::string& out);

// Decodes a chunk whose first event has id `first_id`, calling `fn` for each event in order
// (the Event is reused between calls) until it returns false. Fails on a damaged blob.
Status DecodeChunk(std::string_view blob, uint64_t first_id,
                   const std::function<bool(const Event&)>& fn);

}  // namespace fathom::store
