// Encode(): the frame header, then each message's fields in the order of docs/protocol.md.
#include <variant>

#include "wire/event_list.h"
#include "core/varint.h"
#include "wire/wire_messages.h"

namespace fathom::wire {
namespace {

// Subscribe's flags byte.
constexpr uint8_t kFlagHasSince = 0x01;
constexpr uint8_t kFlagRecursive = 0x02;

void Header(std::string& out, Type type) {
  const char header[4] = {static_cast<char>(kMagic0), static_cast<char>(kMagic1),
                          static_cast<char>(kWireVersion), static_cast<char>(type)};
  out.append(header, sizeof header);
}

void Body(const Hello& m, std::string& out) {
  Header(out, Type::kHello);
  PutString(out, m.collector);
}
void Body(const Welcome& m, std::string& out) {
  Header(out, Type::kWelcome);
  PutVarint(out, m.position);
}
void BatchBody(std::string_view collector, uint64_t from_position, uint64_t to_position,
               std::span<const Event> events, std::string& out) {
  Header(out, Type::kBatch);
  PutString(out, collector);
  PutVarint(out, from_position);
  PutVarint(out, to_position);
  EncodeEventList(events, /*with_ids=*/false, out);
}
void Body(const Batch& m, std::string& out) {
  BatchBody(m.collector, m.from_position, m.to_position, m.events, out);
}
void Body(const BatchAck& m, std::string& out) {
  Header(out, Type::kBatchAck);
  PutVarint(out, m.to_position);
  PutVarint(out, m.first_id);
  PutVarint(out, m.last_id);
}
void Body(const Subscribe& m, std::string& out) {
  Header(out, Type::kSubscribe);
  PutString(out, m.name);
  const uint8_t flags = (m.has_since ? kFlagHasSince : 0) | (m.recursive ? kFlagRecursive : 0);
  out.push_back(static_cast<char>(flags));
  PutVarint(out, m.since);
  PutString(out, m.path_prefix);
  PutVarint(out, m.kinds);
  PutVarint(out, m.credit);
}
void Body(const Subscribed& m, std::string& out) {
  Header(out, Type::kSubscribed);
  PutVarint(out, m.start_after);
  PutVarint(out, m.first_id);
  PutVarint(out, m.last_id);
}
void Body(const Ack& m, std::string& out) {
  Header(out, Type::kAck);
  PutVarint(out, m.id);
  PutVarint(out, m.credit);
}
void EventsHeader(uint64_t after_id, uint64_t through_id, std::string& out) {
  Header(out, Type::kEvents);
  PutVarint(out, after_id);
  PutVarint(out, through_id);
}
void Body(const Events& m, std::string& out) {
  EventsHeader(m.after_id, m.through_id, out);
  EncodeEventList(m.events, /*with_ids=*/true, out);
}
void Body(const Heartbeat& m, std::string& out) {
  Header(out, Type::kHeartbeat);
  PutVarint(out, m.through_id);
}
void Body(const StatsRequest&, std::string& out) { Header(out, Type::kStatsRequest); }
void Body(const Stats& m, std::string& out) {
  Header(out, Type::kStats);
  PutString(out, m.json);
}
void Body(const Error& m, std::string& out) {
  Header(out, Type::kError);
  PutVarint(out, static_cast<uint32_t>(m.code));
  PutVarint(out, m.position);
  PutString(out, m.message);
}

}  // namespace

void Encode(const Message& message, std::string& out) {
  std::visit([&](const auto& m) { Body(m, out); }, message);
}

std::string Encode(const Message& message) {
  std::string out;
  Encode(message, out);
  return out;
}

std::string EncodeBatch(std::string_view collector, uint64_t from_position, uint64_t to_position,
                        std::span<const Event> events) {
  std::string out;
  BatchBody(collector, from_position, to_position, events, out);
  return out;
}

std::string EncodeEvents(uint64_t after_id, uint64_t through_id, std::span<const EventRun> runs) {
  std::string out;
  EventsHeader(after_id, through_id, out);
  EncodeEventList(runs, /*with_ids=*/true, out);
  return out;
}

}  // namespace fathom::wire
