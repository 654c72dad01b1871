// nats_publisher.cpp — the EventSink that publishes a collector's batches to JetStream.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "bus/bus_names.h"
#include "bus/jetstream_link.h"
#include "bus/nats_bus.h"
#include "wire/wire_messages.h"

namespace fathom::bus {
namespace {

using internal::JetStreamLink;
using internal::NatsFailure;
using internal::NatsPtr;

// Room left in a message for its headers (Nats-Msg-Id) and protocol line.
constexpr size_t kHeaderAllowance = 1024;

class NatsPublisher final : public EventSink {
 public:
  NatsPublisher(const PublisherOptions& options, std::vector<std::string> servers)
      : options_(options),
        subject_(internal::CollectorSubject(options.bus.subject_prefix, options.collector)),
        link_(std::move(servers), "fathom collector " + options.collector, options.ack_timeout) {}

  Result<uint64_t> Position(std::string_view /*source*/) override {
    FATHOM_RETURN_IF_ERROR(LoadPosition());
    return committed_;
  }

  Status Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) override;

  void Stop() override { link_.Close(); }

 private:
  Status LoadPosition();
  Result<uint64_t> ReadLastPosition();
  std::string Frame(const std::vector<Event>& events, size_t first, size_t count, uint64_t from, uint64_t to) const;
  // Publishes one batch frame covering (from, to] and waits for the stream's acknowledgement,
  // retrying until it arrives or Stop(); returns the message's stream sequence.
  Result<uint64_t> Publish(const std::string& frame, uint64_t from, uint64_t to);
  Status Connected();
  Status Retry(const Status& failure, std::string_view doing);

  PublisherOptions options_;
  std::string subject_;
  JetStreamLink link_;
  bool stream_ready_ = false;
  bool position_loaded_ = false;
  uint64_t committed_ = 0;  // to_position of the last acknowledged batch
  size_t max_frame_ = 0;
  uint64_t failures_ = 0;
};

Status NatsPublisher::Connected() {
  FATHOM_RETURN_IF_ERROR(link_.Connect());
  if (!stream_ready_) {
    FATHOM_RETURN_IF_ERROR(link_.EnsureStream(options_.bus));
    stream_ready_ = true;
  }
  const int64_t max_payload = natsConnection_GetMaxPayload(link_.connection());
  if (max_payload > static_cast<int64_t>(kHeaderAllowance)) max_frame_ = static_cast<size_t>(max_payload) - kHeaderAllowance;
  return Status::Ok();
}

// Decides after a failed attempt: a permanent failure or Stop() ends the attempts; anything
// else is logged (the first time and then every 20th) and waited out with backoff.
Status NatsPublisher::Retry(const Status& failure, std::string_view doing) {
  if (internal::IsPermanent(failure)) return failure;
  if (link_.closed()) {
    return Status::Error(fmt::format("{} for collector '{}' stopped before an acknowledgement ({})", doing,
                                     options_.collector, failure.message()));
  }
  if (failures_++ % 20 == 0) {
    spdlog::warn("{} for collector '{}' failed, retrying with backoff: {}", doing, options_.collector,
                 failure.message());
  }
  stream_ready_ = false;
  if (!link_.Backoff(options_.max_backoff)) {
    return Status::Error(fmt::format("{} for collector '{}' stopped before an acknowledgement ({})", doing,
                                     options_.collector, failure.message()));
  }
  return Status::Ok();
}

Result<uint64_t> NatsPublisher::ReadLastPosition() {
  natsMsg* raw = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetLastMsg(&raw, link_.js(), options_.bus.stream.c_str(), subject_.c_str(), nullptr, &jerr);
  NatsPtr<natsMsg> msg(raw);
  if (s != NATS_OK) {
    if (jerr == JSNoMessageFoundErr) return uint64_t{0};
    return NatsFailure(fmt::format("last message on {} in stream '{}'", subject_, options_.bus.stream), s, jerr);
  }
  std::string_view frame(natsMsg_GetData(msg.get()), static_cast<size_t>(natsMsg_GetDataLength(msg.get())));
  auto decoded = wire::Decode(frame);
  if (!decoded.ok() || !std::holds_alternative<wire::Batch>(decoded.value())) {
    return Status::Error(
        fmt::format("last message on {} (stream '{}', sequence {}) is not a fathom batch{}{}: the subject "
                    "prefix is used by something else; choose another prefix or stream",
                    subject_, options_.bus.stream, natsMsg_GetSequence(msg.get()), decoded.ok() ? "" : ": ",
                    decoded.ok() ? "" : decoded.status().message()),
        std::make_error_code(std::errc::invalid_argument));
  }
  return std::get<wire::Batch>(decoded.value()).to_position;
}

Status NatsPublisher::LoadPosition() {
  while (!position_loaded_) {
    Status s = Connected();
    if (s.ok()) {
      auto last = ReadLastPosition();
      if (last.ok()) {
        committed_ = last.value();
        position_loaded_ = true;
        link_.ResetBackoff();
        break;
      }
      s = last.status();
    }
    FATHOM_RETURN_IF_ERROR(Retry(s, "reading the position from NATS"));
  }
  return Status::Ok();
}

std::string NatsPublisher::Frame(const std::vector<Event>& events, size_t first, size_t count, uint64_t from,
                                 uint64_t to) const {
  wire::Batch batch{options_.collector, from, to, {}};
  batch.events.assign(events.begin() + static_cast<std::ptrdiff_t>(first),
                      events.begin() + static_cast<std::ptrdiff_t>(first + count));
  for (auto& e : batch.events) e.id = 0;
  return wire::Encode(batch);
}

Result<uint64_t> NatsPublisher::Publish(const std::string& frame, uint64_t from, uint64_t to) {
  const std::string msg_id = internal::BatchMessageId(options_.collector, to);
  for (;;) {
    Status s = Connected();
    if (s.ok()) {
      jsPubOptions po;
      jsPubOptions_Init(&po);
      po.MaxWait = options_.ack_timeout.count();
      po.MsgId = msg_id.c_str();
      jsPubAck* raw_ack = nullptr;
      jsErrCode jerr = static_cast<jsErrCode>(0);
      natsStatus ps = js_Publish(&raw_ack, link_.js(), subject_.c_str(), frame.data(),
                                 static_cast<int>(frame.size()), &po, &jerr);
      NatsPtr<jsPubAck> ack(raw_ack);
      if (ps == NATS_OK) {
        link_.ResetBackoff();
        if (failures_ > 0) spdlog::info("publishing for collector '{}' to NATS resumed", options_.collector);
        failures_ = 0;
        return ack->Sequence;
      }
      s = NatsFailure(fmt::format("publishing batch ({}, {}] on {} to stream '{}'", from, to, subject_,
                                  options_.bus.stream),
                      ps, jerr);
    }
    FATHOM_RETURN_IF_ERROR(Retry(s, "publishing to NATS"));
  }
}

Status NatsPublisher::Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) {
  if (batch.size() > wire::kMaxBatchEvents) {
    return Status::Error(fmt::format("batch of {} events for collector '{}' exceeds the {} a bus message holds",
                                     batch.size(), options_.collector, wire::kMaxBatchEvents));
  }
  if (batch.empty() && !position) return Status::Ok();
  FATHOM_RETURN_IF_ERROR(LoadPosition());
  if (position && position->position <= committed_) {  // already committed by an earlier run
    for (auto& e : batch) e.id = 0;
    return Status::Ok();
  }
  // A batch numbered here is split into messages the server accepts; a source's own
  // position covers the whole batch, which must then fit one message.
  size_t first = 0;
  size_t chunk = std::max<size_t>(batch.size(), 1);
  do {
    const size_t count = std::min(chunk, batch.size() - first);
    const uint64_t from = committed_;
    const uint64_t to = position ? position->position : from + count;
    const std::string frame = Frame(batch, first, count, from, to);
    if (max_frame_ > 0 && frame.size() > max_frame_) {
      if (!position && count > 1) {
        chunk = count / 2;
        continue;
      }
      return Status::Error(
          fmt::format("batch of {} events for collector '{}' encodes to {} bytes, more than the NATS server "
                      "{} accepts ({} bytes with headers): raise max_payload in the nats-server configuration "
                      "(e.g. max_payload: 8MB) or send smaller batches",
                      count, options_.collector, frame.size(), link_.servers_text(), max_frame_ + kHeaderAllowance),
          std::make_error_code(std::errc::invalid_argument));
    }
    FATHOM_ASSIGN_OR_RETURN(uint64_t seq, Publish(frame, from, to));
    for (size_t i = 0; i < count; ++i) batch[first + i].id = (seq << kIdIndexBits) | i;
    committed_ = to;
    first += count;
  } while (first < batch.size());
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<EventSink>> OpenNatsPublisher(const PublisherOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> servers, internal::ParseServers(options.endpoint));
  if (options.collector.empty()) {
    return Status::Error("publishing to NATS needs a collector name (its subject and positions are kept per name)");
  }
  if (options.bus.stream.empty() || options.bus.subject_prefix.empty()) {
    return Status::Error(fmt::format("NATS bus {}: stream name and subject prefix must not be empty",
                                     options.endpoint));
  }
  return std::unique_ptr<EventSink>(std::make_unique<NatsPublisher>(options, std::move(servers)));
}

}  // namespace fathom::bus
