// event_chunk.h — many events with contiguous ids encoded into one compact blob.
//
// The store keeps events many to a row: one SQLite row per chunk of up to kMaxChunkEvents
// events, because the per-row cost of SQLite (about a microsecond of CPU) dominated appends.
// A chunk does not hold ids: they are first_id .. first_id + count - 1, kept in the row.
// Encoding (all integers LEB128 varints): a 0 byte (the layout marker); count; then per event:
// ts as a zig-zag delta from the previous event's ts, mask, cookie, root and source as indexes
// into a string table built as the chunk goes (index == table size introduces a new string:
// length + bytes), path as the length of the prefix shared with the previous path + length +
// the rest, attrs as its pieces between commas (count, 0 for ""), each written against a piece
// of the previous event's attrs with the same key (the bytes through its first ':'): tag 0 and
// the piece (length + bytes), or tag 1 + 2 * skip for the same piece as the matching one,
// tag 2 + 2 * skip followed by the shared prefix length and the rest (length + bytes) for a
// piece that differs. skip counts the previous pieces passed over since the last one matched.
// A Lustre event's attrs (about 160 bytes) take about 30, a whole Lustre event about 50.
// Chunks of the earlier layout (no marker, attrs as length + bytes) still decode, so
// stores written before keep reading. Decoding checks every length against the blob and fails
// on damage, never reading outside it. Pure functions; no threads, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "fathom/event.h"
#include "fathom/status.h"
#include "fathom/store.h"

namespace fathom::store {

inline constexpr size_t kMaxChunkEvents = 4096;

// Appends the encoding of `events` (whose ids are ignored) to `out`; the second form encodes
// the events pointed to, in that order (no copies of scattered events).
void EncodeChunk(std::span<const Event> events, std::string& out);
void EncodeChunk(std::span<const Event* const> events, std::string& out);

// The encoding of `events` as one EncodedChunk (count and ts range filled in); at most
// kMaxChunkEvents events.
EncodedChunk MakeChunk(std::span<const Event> events);
EncodedChunk MakeChunk(std::span<const Event* const> events);

// Whether a chunk is in the layout EncodeChunk writes (not the earlier one).
bool ChunkInCurrentLayout(std::string_view blob);

// The event count a chunk declares, nullopt when it cannot be read.
std::optional<uint64_t> ChunkEventCount(std::string_view blob);

// Decodes a chunk whose first event has id `first_id`, calling `fn` for each event in order
// (the Event is reused between calls) until it returns false. Fails on a damaged blob.
Status DecodeChunk(std::string_view blob, uint64_t first_id,
                   const std::function<bool(const Event&)>& fn);

// What a chunk holds, learned without building its events (ScanChunk).
struct ChunkSummary {
  uint64_t count = 0;
  int64_t min_ts = 0;  // the oldest and newest ts_ns of its events (0 when it holds none)
  int64_t max_ts = 0;
  uint64_t string_bytes = 0;  // root + path + source + attrs bytes of its events, decoded
  uint64_t kindless = 0;      // events whose mask has no bit of kind::kAll
};

// Checks a chunk as DecodeChunk does, accepting exactly the blobs it accepts (both are one
// walk), without building events: the attrs are followed by their pieces' lengths only, and
// each path is rebuilt (in a buffer of the scan's own) only when `path` is given; it is then
// called with each event's path until it returns false, ending the scan there (Ok, the summary
// counting the events before). Fails on a damaged blob.
Result<ChunkSummary> ScanChunk(std::string_view blob,
                               const std::function<bool(std::string_view)>& path = nullptr);

}  // namespace fathom::store
