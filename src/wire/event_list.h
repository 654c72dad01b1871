// event_list.h — the events of a Batch or an Events message on the wire.
//
// Layout: count (varint, at most kMaxBatchEvents); with ids only (Events), when count > 0,
// the first id then count - 1 increments (varints, each >= 1); then the events in chunks, each
// its byte length (varint) followed by store::EncodeChunk of its events (src/store/event_chunk.h).
// A chunk holds 1..store::kMaxChunkEvents events, together count: encoding fills each chunk but
// the last; decoding takes any sizes (so that chunks encoded once can be passed on as they are).
// Decoding caps the memory it allocates: the count must fit in the bytes left, and the
// strings of all decoded events together may not exceed kMaxDecodedStringBytes (the path
// prefix sharing and the string table could otherwise expand a small frame enormously).
// Pure functions; no threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"
#include "fathom/store.h"
#include "wire/body_reader.h"
#include "wire/wire_messages.h"

namespace fathom::wire {

inline constexpr size_t kMaxDecodedStringBytes = 64u << 20;

// Appends the event list; `with_ids` writes the ids (increasing), else they are ignored.
// The second form lists the runs' events in order (see EventRun).
void EncodeEventList(std::span<const Event> events, bool with_ids, std::string& out);
void EncodeEventList(std::span<const EventRun> runs, bool with_ids, std::string& out);

// Reads an event list into `out` (replacing it). Without ids the events get id 0; with ids,
// every id must lie in (after_id, through_id] and increase. `chunks`, when given, receives
// the events instead, each chunk as it came (replacing its contents), checked as decoding
// checks it (store::ScanChunk, the same limits) but not decoded: `out` is left empty (meant
// for a collector's Batch, whose list has no ids). Such a list is also refused when an event
// reports no kind (no bit of kind::kAll), as no consumer could ever receive it.
Status DecodeEventList(BodyReader& reader, bool with_ids, uint64_t after_id,
                       uint64_t through_id, std::vector<Event>& out,
                       std::vector<EncodedChunk>* chunks = nullptr);

}  // namespace fathom::wire
