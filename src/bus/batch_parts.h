// batch_parts.h — how one collector batch is carried by several NATS messages when it does
// not fit in one (the server's max_payload, 1 MB by default).
//
// Every part is a complete wire Batch frame with the whole batch's (from, to] and a contiguous
// slice of its events. A batch that fits in one message is sent as before: no part headers,
// Nats-Msg-Id "<token>:<to>". A batch of n > 1 parts carries on part k (1-based):
//   Nats-Msg-Id      "<token>:<to>:<k>/<n>:<digest>"  (digest: 16 hex digits of a hash of every
//                    part's frame, so only the same content under the same split is deduplicated)
//   Fathom-Part      "<k> <n> <first_index> <total>"  (first_index: the batch index of the
//                    part's first event; total: the batch's event count)
//   Fathom-Prev-Seq  "<stream sequence of part k-1>"  (k > 1; a chain back to part 1)
// The batch counts as published when its last part is acknowledged; its events' ids are
// (sequence of the last part << 16) | index in the batch. Parts before the last are staged:
// a subscriber delivers their events only with the last part, and never those of a batch
// whose last part was never stored (a collector that died between parts re-sends the batch).
// Pure functions except ReadPartInfo (reads a message's headers); any thread.
#pragma once

#include <nats/nats.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bus/nats_handles.h"
#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::bus::internal {

inline constexpr const char* kPartHeader = "Fathom-Part";
inline constexpr const char* kPrevSeqHeader = "Fathom-Prev-Seq";
inline constexpr const char* kMsgIdHeader = "Nats-Msg-Id";

struct PartInfo {
  uint32_t part = 1;         // 1-based
  uint32_t parts = 1;
  uint32_t first_index = 0;  // batch index of the part's first event
  uint32_t total = 0;        // events in the whole batch
  uint64_t prev_seq = 0;     // stream sequence of the previous part (part > 1)

  bool last() const { return part == parts; }
};

struct BatchPart {
  size_t first = 0;  // index of the part's first event in the batch
  size_t count = 0;
  std::string frame;  // the wire Batch frame
};

// What the split needs to know about where the batch goes (for its error messages).
struct SplitTarget {
  std::string_view collector;
  std::string_view servers;
  int64_t max_payload = 0;  // the server's, as the connection reports it
  size_t max_frame = 0;     // largest frame a message may carry (max_payload less headers)
};

// The largest frame one message may carry: the server's max_payload less room for the headers
// (Nats-Msg-Id and the part headers grow with the subject); 0 (no limit known) when tiny.
size_t MaxFrame(int64_t max_payload, std::string_view subject);

// Slices the batch (from, to] into the fewest contiguous parts it can find (equal event
// counts first, halving any slice still too large) whose frames are at most max_frame bytes
// (max_frame 0: one part). An empty batch is one empty part. A single event too large fails
// (permanently: std::errc::invalid_argument) naming its path, its encoded size, the server's
// max_payload and how to raise it.
Result<std::vector<BatchPart>> SplitBatch(const SplitTarget& target, const std::vector<Event>& events,
                                          uint64_t from, uint64_t to);

// The message for one batch frame on `subject` with Nats-Msg-Id `msg_id` and, for a part of a
// several-part batch (`part` set), its part headers.
Result<NatsPtr<natsMsg>> BatchMessage(const std::string& subject, const std::string& frame, const std::string& msg_id,
                                      const PartInfo* part);

uint64_t BatchDigest(const std::vector<BatchPart>& parts);
std::string PartMessageId(std::string_view collector, uint64_t to, const PartInfo& info, uint64_t digest);
std::string FormatPartHeader(const PartInfo& info);

// The part headers of a stored or delivered message: nullopt for a message without them (a
// whole batch); an error when they are present but malformed.
Result<std::optional<PartInfo>> ReadPartInfo(natsMsg* msg);

}  // namespace fathom::bus::internal
