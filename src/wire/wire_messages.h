// wire_messages.h — the messages of fathom's wire protocol (docs/protocol.md) and their codec.
//
// Every message is one ZeroMQ frame: a 4-byte header — magic 0xF7 0x4D, protocol version
// (kWireVersion), message type — then the body: unsigned integers as LEB128 varints, strings
// as varint length + bytes, events as described per message. The same encoding is the payload
// of a NATS JetStream message on the bus (a Batch).
// Decode() never reads outside its input and never allocates more than a bounded multiple of
// the input's size, plus at most 64 MiB for the strings of decoded events (shared path
// prefixes and repeated roots expand on decoding; more is refused). Hostile frames (short,
// huge lengths, unknown types or versions, trailing bytes) give an error Status naming the
// problem. Encode() expects what Decode() checks (at most kMaxBatchEvents events; Events ids
// increasing within (after_id, through_id]); a frame that breaks it will not decode.
// Pure functions; no threads, no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"
#include "fathom/store.h"

namespace fathom::wire {

inline constexpr uint8_t kMagic0 = 0xF7;
inline constexpr uint8_t kMagic1 = 0x4D;
inline constexpr uint8_t kWireVersion = 2;  // what this build writes
// The oldest version it reads: version 1 differs only in the layout of event chunks, which
// the chunk decoder tells apart by their first byte (store/event_chunk.h).
inline constexpr uint8_t kOldestWireVersion = 1;
inline constexpr bool ReadableVersion(uint8_t v) {
  return v >= kOldestWireVersion && v <= kWireVersion;
}
inline constexpr size_t kMaxFrameBytes = 64u << 20;  // larger frames are refused unread
inline constexpr size_t kMaxBatchEvents = 65536;

enum class Type : uint8_t {
  // collector -> aggregator
  kHello = 0x01,      // a collector introduces itself; answered by Welcome
  kBatch = 0x02,      // events covering (from_position, to_position]; answered by BatchAck
  // consumer -> aggregator
  kSubscribe = 0x10,  // start (or restart) delivery; answered by Subscribed, then Events
  kAck = 0x11,        // processed through an id; grants more credit
  kStatsRequest = 0x12,
  // aggregator -> client
  kWelcome = 0x81,
  kBatchAck = 0x82,
  kSubscribed = 0x90,
  kEvents = 0x91,
  kHeartbeat = 0x92,
  kStats = 0x93,
  kError = 0xFF,
};

enum class ErrorCode : uint32_t {
  kMalformed = 1,       // the frame could not be decoded (message says why); permanent
  kVersion = 2,         // unsupported protocol version; permanent
  kNotPermitted = 3,    // the client's key lacks the role or the grant; permanent
  kPositionGap = 4,     // a batch starts after the stored position: resend from `position`
  kUnavailable = 5,     // the store cannot commit now (disk full, ...): retry later
  kPurged = 6,          // requested ids are gone (retention); message names them; permanent
  kUnknownSession = 7,  // ack/credit from a client that has not subscribed: subscribe again
};

struct Hello {
  std::string collector;  // unique collector name: positions are kept per name
};
struct Welcome {
  uint64_t position = 0;  // last position committed for the collector (0 if none)
};
struct Batch {
  std::string collector;
  uint64_t from_position = 0;  // position committed before this batch (exclusive)
  uint64_t to_position = 0;    // position covered once this batch is committed
  std::vector<Event> events;   // ids are not sent (the aggregator assigns them)
};
struct BatchAck {
  uint64_t to_position = 0;
  uint64_t first_id = 0;  // ids given to the batch's events (0, 0 for an empty or duplicate)
  uint64_t last_id = 0;
};
struct Subscribe {
  std::string name;            // durable consumer name, "" for none
  bool has_since = false;      // false: the name's acknowledged id, or live only
  uint64_t since = 0;          // deliver ids > since
  std::string path_prefix;     // "" = everything the client is granted
  bool recursive = true;
  uint32_t kinds = kind::kAll;
  uint32_t credit = 65536;     // events that may be sent beyond the last Ack
};
struct Subscribed {
  uint64_t start_after = 0;  // delivery starts with ids > start_after
  uint64_t first_id = 0;     // oldest id held by the store (0 when empty)
  uint64_t last_id = 0;      // newest id committed
};
struct Ack {
  uint64_t id = 0;       // processed through this id
  uint32_t credit = 0;   // new credit (events beyond `id`)
};
// The events matching the subscription among ids (after_id, through_id]: a consumer whose
// last message ended at an id other than after_id has a gap and must resubscribe from it.
struct Events {
  uint64_t after_id = 0;
  uint64_t through_id = 0;
  std::vector<Event> events;  // with ids, increasing, all within the range
};
struct Heartbeat {
  uint64_t through_id = 0;  // every matching event through this id has been sent
};
struct StatsRequest {};
struct Stats {
  std::string json;  // counters as one JSON object
};
struct Error {
  ErrorCode code = ErrorCode::kMalformed;
  uint64_t position = 0;  // kPositionGap: the stored position; kPurged: the first id held
  std::string message;
};

using Message = std::variant<Hello, Welcome, Batch, BatchAck, Subscribe, Subscribed, Ack,
                             Events, Heartbeat, StatsRequest, Stats, Error>;

// Appends the frame for `message` to `out`.
void Encode(const Message& message, std::string& out);
std::string Encode(const Message& message);
// The frame of Batch{collector, from, to, events} without copying the events (their ids are
// not sent).
std::string EncodeBatch(std::string_view collector, uint64_t from_position, uint64_t to_position,
                        std::span<const Event> events);
// A run of an Events message's events: those pointed to (ids increasing), encoded for the
// message, or, when `chunk` is not empty, `count` events with contiguous ids from `first_id`
// already encoded as that chunk (store::EncodeChunk of exactly those events), passed on as it
// is.
struct EventRun {
  std::span<const Event* const> events;
  std::string_view chunk;
  uint64_t first_id = 0;
  size_t count = 0;
};

// The frame of Events{after_id, through_id, the runs' events in order} (ids increasing over
// all runs), without copying events.
std::string EncodeEvents(uint64_t after_id, uint64_t through_id, std::span<const EventRun> runs);

// Decodes one whole frame. `batch_chunks`, when given, receives a Batch's events as they came,
// chunk by chunk, checked but not decoded (see DecodeEventList): the Batch's `events` stay
// empty. The chunks can then be stored and passed on without being decoded or encoded again.
// Every other message leaves it empty.
Result<Message> Decode(std::string_view frame, std::vector<EncodedChunk>* batch_chunks = nullptr);

// The type byte of a frame that at least has a valid header (for routing before decoding).
Result<Type> PeekType(std::string_view frame);

}  // namespace fathom::wire
