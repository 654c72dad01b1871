// Decode() and PeekType(): the header checks, then each message's fields in the order of
// docs/protocol.md, every read bounds-checked by BodyReader.
#include <cstdio>

#include "wire/body_reader.h"
#include "wire/event_list.h"
#include "wire/wire_messages.h"

namespace fathom::wire {
namespace {

constexpr size_t kHeaderBytes = 4;
constexpr uint8_t kFlagHasSince = 0x01;
constexpr uint8_t kFlagRecursive = 0x02;

// The message name of a known type, "" for an unknown one.
std::string_view TypeName(uint8_t type) {
  switch (static_cast<Type>(type)) {
    case Type::kHello: return "Hello";
    case Type::kBatch: return "Batch";
    case Type::kSubscribe: return "Subscribe";
    case Type::kAck: return "Ack";
    case Type::kStatsRequest: return "StatsRequest";
    case Type::kWelcome: return "Welcome";
    case Type::kBatchAck: return "BatchAck";
    case Type::kSubscribed: return "Subscribed";
    case Type::kEvents: return "Events";
    case Type::kHeartbeat: return "Heartbeat";
    case Type::kStats: return "Stats";
    case Type::kError: return "Error";
  }
  return "";
}

std::string Hex(uint8_t byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", byte);
  return buf;
}

Status CheckHeader(std::string_view frame) {
  if (frame.size() > kMaxFrameBytes) {
    return Status::Error("wire: frame of " + std::to_string(frame.size()) +
                         " bytes exceeds the limit of " + std::to_string(kMaxFrameBytes));
  }
  if (frame.size() < kHeaderBytes) {
    return Status::Error("wire: frame of " + std::to_string(frame.size()) +
                         " bytes is shorter than the 4-byte header");
  }
  const auto b0 = static_cast<uint8_t>(frame[0]);
  const auto b1 = static_cast<uint8_t>(frame[1]);
  if (b0 != kMagic0 || b1 != kMagic1) {
    return Status::Error("wire: bad magic " + Hex(b0) + " " + Hex(b1) + " (expected " +
                         Hex(kMagic0) + " " + Hex(kMagic1) + "): not a fathom frame");
  }
  const auto version = static_cast<uint8_t>(frame[2]);
  if (!ReadableVersion(version)) {
    return Status::Error("wire: unsupported protocol version " + std::to_string(version) +
                         " (this build speaks versions " + std::to_string(kOldestWireVersion) +
                         " to " + std::to_string(kWireVersion) + "); upgrade the older side");
  }
  if (TypeName(static_cast<uint8_t>(frame[3])).empty()) {
    return Status::Error("wire: unknown message type " + Hex(static_cast<uint8_t>(frame[3])));
  }
  return Status::Ok();
}

Status Read(BodyReader& r, Hello& m) { return r.String("collector", m.collector); }
Status Read(BodyReader& r, Welcome& m) { return r.U64("position", m.position); }
Status Read(BodyReader& r, Batch& m, std::vector<EncodedChunk>* chunks) {
  FATHOM_RETURN_IF_ERROR(r.String("collector", m.collector));
  FATHOM_RETURN_IF_ERROR(r.U64("from_position", m.from_position));
  FATHOM_RETURN_IF_ERROR(r.U64("to_position", m.to_position));
  if (m.to_position < m.from_position) {
    return r.Fail("to_position " + std::to_string(m.to_position) + " is before from_position " +
                  std::to_string(m.from_position));
  }
  return DecodeEventList(r, /*with_ids=*/false, 0, 0, m.events, chunks);
}
Status Read(BodyReader& r, BatchAck& m) {
  FATHOM_RETURN_IF_ERROR(r.U64("to_position", m.to_position));
  FATHOM_RETURN_IF_ERROR(r.U64("first_id", m.first_id));
  FATHOM_RETURN_IF_ERROR(r.U64("last_id", m.last_id));
  if (m.first_id > m.last_id) {
    return r.Fail("first_id " + std::to_string(m.first_id) + " is after last_id " +
                  std::to_string(m.last_id));
  }
  return Status::Ok();
}
Status Read(BodyReader& r, Subscribe& m) {
  FATHOM_RETURN_IF_ERROR(r.String("name", m.name));
  uint8_t flags = 0;
  FATHOM_RETURN_IF_ERROR(r.Byte("flags", flags));
  if ((flags & ~(kFlagHasSince | kFlagRecursive)) != 0) {
    return r.Fail("unknown flag bits " + Hex(flags & ~(kFlagHasSince | kFlagRecursive)));
  }
  m.has_since = (flags & kFlagHasSince) != 0;
  m.recursive = (flags & kFlagRecursive) != 0;
  FATHOM_RETURN_IF_ERROR(r.U64("since", m.since));
  FATHOM_RETURN_IF_ERROR(r.String("path_prefix", m.path_prefix));
  FATHOM_RETURN_IF_ERROR(r.U32("kinds", m.kinds));
  return r.U32("credit", m.credit);
}
Status Read(BodyReader& r, Subscribed& m) {
  FATHOM_RETURN_IF_ERROR(r.U64("start_after", m.start_after));
  FATHOM_RETURN_IF_ERROR(r.U64("first_id", m.first_id));
  return r.U64("last_id", m.last_id);
}
Status Read(BodyReader& r, Ack& m) {
  FATHOM_RETURN_IF_ERROR(r.U64("id", m.id));
  return r.U32("credit", m.credit);
}
Status Read(BodyReader& r, Events& m) {
  FATHOM_RETURN_IF_ERROR(r.U64("after_id", m.after_id));
  FATHOM_RETURN_IF_ERROR(r.U64("through_id", m.through_id));
  if (m.through_id < m.after_id) {
    return r.Fail("through_id " + std::to_string(m.through_id) + " is before after_id " +
                  std::to_string(m.after_id));
  }
  return DecodeEventList(r, /*with_ids=*/true, m.after_id, m.through_id, m.events);
}
Status Read(BodyReader& r, Heartbeat& m) { return r.U64("through_id", m.through_id); }
Status Read(BodyReader&, StatsRequest&) { return Status::Ok(); }
Status Read(BodyReader& r, Stats& m) { return r.String("json", m.json); }
Status Read(BodyReader& r, Error& m) {
  uint32_t code = 0;
  FATHOM_RETURN_IF_ERROR(r.U32("code", code));
  m.code = static_cast<ErrorCode>(code);
  FATHOM_RETURN_IF_ERROR(r.U64("position", m.position));
  return r.String("message", m.message);
}

template <typename M, typename... Extra>
Result<Message> DecodeBody(std::string_view body, std::string_view name, Extra... extra) {
  BodyReader reader(body, name);
  M m;
  FATHOM_RETURN_IF_ERROR(Read(reader, m, extra...));
  FATHOM_RETURN_IF_ERROR(reader.End());
  return Message(std::move(m));
}

}  // namespace

Result<Type> PeekType(std::string_view frame) {
  FATHOM_RETURN_IF_ERROR(CheckHeader(frame));
  return static_cast<Type>(static_cast<uint8_t>(frame[3]));
}

Result<Message> Decode(std::string_view frame, std::vector<EncodedChunk>* batch_chunks) {
  if (batch_chunks != nullptr) batch_chunks->clear();
  FATHOM_RETURN_IF_ERROR(CheckHeader(frame));
  const auto type = static_cast<uint8_t>(frame[3]);
  const std::string_view body = frame.substr(kHeaderBytes);
  const std::string_view name = TypeName(type);
  switch (static_cast<Type>(type)) {
    case Type::kHello: return DecodeBody<Hello>(body, name);
    case Type::kBatch: return DecodeBody<Batch>(body, name, batch_chunks);
    case Type::kSubscribe: return DecodeBody<Subscribe>(body, name);
    case Type::kAck: return DecodeBody<Ack>(body, name);
    case Type::kStatsRequest: return DecodeBody<StatsRequest>(body, name);
    case Type::kWelcome: return DecodeBody<Welcome>(body, name);
    case Type::kBatchAck: return DecodeBody<BatchAck>(body, name);
    case Type::kSubscribed: return DecodeBody<Subscribed>(body, name);
    case Type::kEvents: return DecodeBody<Events>(body, name);
    case Type::kHeartbeat: return DecodeBody<Heartbeat>(body, name);
    case Type::kStats: return DecodeBody<Stats>(body, name);
    case Type::kError: return DecodeBody<Error>(body, name);
  }
  return Status::Error("wire: unknown message type " + Hex(type));
}

}  // namespace fathom::wire
