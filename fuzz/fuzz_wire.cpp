// fuzz_wire — the wire decoder on arbitrary frames, and re-encode/decode round trips of
// whatever decodes.
//
// A hostile frame must give an error, never a read outside it or an unbounded allocation;
// a frame that decodes must encode to a frame that decodes to the same message, and
// PeekType must agree with Decode on every frame. The chunks a Batch keeps (which the
// aggregator stores and passes on as they came) must hold exactly the events decoded.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "store/event_chunk.h"
#include "wire/wire_messages.h"

namespace {

[[noreturn]] void Violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "property violated: %s (%s)\n", what, detail.c_str());
  std::abort();
}

bool SameMessage(const fathom::wire::Message& a, const fathom::wire::Message& b) {
  using namespace fathom::wire;
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using M = std::decay_t<decltype(x)>;
        const M& y = std::get<M>(b);
        if constexpr (std::is_same_v<M, Hello>) return x.collector == y.collector;
        if constexpr (std::is_same_v<M, Welcome>) return x.position == y.position;
        if constexpr (std::is_same_v<M, Batch>) {
          return x.collector == y.collector && x.from_position == y.from_position &&
                 x.to_position == y.to_position && x.events == y.events;
        }
        if constexpr (std::is_same_v<M, BatchAck>) {
          return x.to_position == y.to_position && x.first_id == y.first_id &&
                 x.last_id == y.last_id;
        }
        if constexpr (std::is_same_v<M, Subscribe>) {
          return x.name == y.name && x.has_since == y.has_since && x.since == y.since &&
                 x.path_prefix == y.path_prefix && x.recursive == y.recursive &&
                 x.kinds == y.kinds && x.credit == y.credit;
        }
        if constexpr (std::is_same_v<M, Subscribed>) {
          return x.start_after == y.start_after && x.first_id == y.first_id &&
                 x.last_id == y.last_id;
        }
        if constexpr (std::is_same_v<M, Ack>) return x.id == y.id && x.credit == y.credit;
        if constexpr (std::is_same_v<M, Events>) {
          return x.after_id == y.after_id && x.through_id == y.through_id && x.events == y.events;
        }
        if constexpr (std::is_same_v<M, Heartbeat>) return x.through_id == y.through_id;
        if constexpr (std::is_same_v<M, StatsRequest>) return true;
        if constexpr (std::is_same_v<M, Stats>) return x.json == y.json;
        if constexpr (std::is_same_v<M, Error>) {
          return x.code == y.code && x.position == y.position && x.message == y.message;
        }
      },
      a);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view frame(reinterpret_cast<const char*>(data), size);
  const auto peeked = fathom::wire::PeekType(frame);
  auto decoded = fathom::wire::Decode(frame);
  if (!decoded.ok()) {
    if (decoded.status().message().rfind("wire: ", 0) != 0) {
      Violated("error does not start with \"wire: \"", decoded.status().message());
    }
    return 0;
  }
  if (!peeked.ok()) Violated("PeekType failed on a frame that decodes", peeked.status().message());
  if (static_cast<uint8_t>(peeked.value()) != data[3]) Violated("PeekType disagrees", "");

  const std::string again = fathom::wire::Encode(*decoded);
  if (static_cast<uint8_t>(again[3]) != data[3]) Violated("re-encoded type differs", "");
  auto redecoded = fathom::wire::Decode(again);
  if (!redecoded.ok()) Violated("re-encoded frame does not decode", redecoded.status().message());
  if (!SameMessage(*decoded, *redecoded)) Violated("round trip changed the message", "");
  if (fathom::wire::Encode(*redecoded) != again) Violated("encoding is not deterministic", "");

  std::vector<fathom::EncodedChunk> chunks;
  auto kept = fathom::wire::Decode(frame, &chunks);
  const auto* batch = std::get_if<fathom::wire::Batch>(&*decoded);
  if (batch == nullptr) {
    if (!kept.ok()) Violated("keeping chunks fails a message other than Batch", kept.status().message());
    if (!chunks.empty()) Violated("a message other than Batch kept chunks", "");
    return 0;
  }
  // Kept, a Batch's chunks are checked without being decoded: accepted exactly when the batch
  // decodes and every event reports a kind.
  bool kinded = true;
  for (const auto& e : batch->events) kinded = kinded && (e.mask & fathom::kind::kAll) != 0;
  if (kept.ok() != kinded) {
    Violated(kept.ok() ? "kept chunks accept an event of no kind" : "keeping a Batch's chunks fails it",
             kept.ok() ? "" : kept.status().message());
  }
  if (!kept.ok()) return 0;
  if (!std::get<fathom::wire::Batch>(*kept).events.empty()) Violated("kept chunks also decoded", "");
  size_t next = 0;
  for (const auto& c : chunks) {
    const size_t first = next;
    int64_t min_ts = INT64_MAX, max_ts = INT64_MIN;
    const auto status = fathom::store::DecodeChunk(*c.data, 0, [&](const fathom::Event& e) {
      if (next >= batch->events.size()) Violated("kept chunks hold more events than the batch", "");
      fathom::Event want = batch->events[next];
      want.id = next - first;
      if (!(e == want)) Violated("a kept chunk decodes to other events", std::to_string(next));
      min_ts = std::min(min_ts, e.ts_ns);
      max_ts = std::max(max_ts, e.ts_ns);
      ++next;
      return true;
    });
    if (!status.ok()) Violated("a kept chunk does not decode", status.message());
    if (next - first != c.count) Violated("a kept chunk's count is wrong", std::to_string(c.count));
    if (c.min_ts != min_ts || c.max_ts != max_ts) Violated("a kept chunk's ts range is wrong", "");
  }
  if (next != batch->events.size()) Violated("kept chunks hold fewer events than the batch", "");
  return 0;
}
