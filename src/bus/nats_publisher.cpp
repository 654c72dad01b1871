// nats_publisher.cpp — the EventSink that publishes a collector's batches to JetStream.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "bus/batch_parts.h"
#include "bus/bus_names.h"
#include "bus/jetstream_link.h"
#include "bus/nats_bus.h"
#include "bus/retry_log.h"
#include "wire/wire_messages.h"

namespace fathom::bus {
namespace {

using internal::JetStreamLink;
using internal::NatsFailure;
using internal::NatsPtr;

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
  // The last message on the collector's subject (null when there is none).
  Result<NatsPtr<natsMsg>> LastMessage();
  Result<uint64_t> ReadLastPosition();
  // The stream sequence of message `msg_id` if it is the last on the subject (an earlier
  // attempt was stored but its acknowledgement lost, perhaps longer ago than the stream's
  // duplicate window), else 0.
  Result<uint64_t> StoredAs(const std::string& msg_id);
  // Publishes one message (a whole batch, or one part with `part` set) and waits for the
  // stream's acknowledgement, retrying until it arrives or Stop(); returns its stream sequence
  // (the stored one's when the stream recognised a duplicate).
  Result<uint64_t> Publish(const std::string& frame, const std::string& msg_id, const internal::PartInfo* part,
                           uint64_t from, uint64_t to);
  Status Connected();
  Status Retry(const Status& failure, std::string_view doing);
  // An answer from the bus: the backoff starts over, and recovery after failures is logged.
  void Answered();

  PublisherOptions options_;
  std::string subject_;
  JetStreamLink link_;
  bool stream_ready_ = false;
  bool position_loaded_ = false;
  uint64_t committed_ = 0;  // to_position of the last batch whose every part is acknowledged
  int64_t max_payload_ = 0;
  size_t max_frame_ = 0;
  internal::RetryLog retry_log_;
};

Status NatsPublisher::Connected() {
  FATHOM_RETURN_IF_ERROR(link_.Connect());
  if (!stream_ready_) {
    FATHOM_RETURN_IF_ERROR(link_.EnsureStream(options_.bus));
    stream_ready_ = true;
  }
  max_payload_ = natsConnection_GetMaxPayload(link_.connection());
  max_frame_ = internal::MaxFrame(max_payload_, subject_);
  return Status::Ok();
}

// Decides after a failed attempt: a permanent failure or Stop() ends the attempts; anything
// else is logged (at growing intervals, retry_log.h) and waited out with backoff.
Status NatsPublisher::Retry(const Status& failure, std::string_view doing) {
  if (internal::IsPermanent(failure)) return failure;
  if (link_.closed()) {
    return Status::Error(fmt::format("{} for collector '{}' stopped before an acknowledgement ({})", doing,
                                     options_.collector, failure.message()));
  }
  if (retry_log_.Failed()) {
    spdlog::warn("{} for collector '{}' failed, retrying with backoff ({} attempt{} failed so far): {}", doing,
                 options_.collector, retry_log_.failures(), retry_log_.failures() == 1 ? "" : "s", failure.message());
  }
  stream_ready_ = false;
  if (!link_.Backoff(options_.max_backoff)) {
    return Status::Error(fmt::format("{} for collector '{}' stopped before an acknowledgement ({})", doing,
                                     options_.collector, failure.message()));
  }
  return Status::Ok();
}

void NatsPublisher::Answered() {
  link_.ResetBackoff();
  const uint64_t failed = retry_log_.Succeeded();
  if (failed > 0) {
    spdlog::info("NATS answers collector '{}' again after {} failed attempts", options_.collector, failed);
  }
}

Result<NatsPtr<natsMsg>> NatsPublisher::LastMessage() {
  natsMsg* raw = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetLastMsg(&raw, link_.js(), options_.bus.stream.c_str(), subject_.c_str(), nullptr, &jerr);
  NatsPtr<natsMsg> msg(raw);
  if (s == NATS_OK) return msg;
  if (jerr == JSNoMessageFoundErr) return NatsPtr<natsMsg>();
  return NatsFailure(fmt::format("last message on {} in stream '{}'", subject_, options_.bus.stream), s, jerr);
}

Result<uint64_t> NatsPublisher::StoredAs(const std::string& msg_id) {
  FATHOM_ASSIGN_OR_RETURN(NatsPtr<natsMsg> msg, LastMessage());
  const char* id = nullptr;
  if (msg == nullptr || natsMsgHeader_Get(msg.get(), "Nats-Msg-Id", &id) != NATS_OK || id == nullptr ||
      msg_id != id) {
    return uint64_t{0};
  }
  return natsMsg_GetSequence(msg.get());
}

// The last message on the collector's subject decides: a whole batch or the last part of one
// gives its to_position; a part before the last means the previous run died between parts,
// so the batch is not published and the position is its from_position (the stored parts are
// never delivered; the batch is sent again whole).
Result<uint64_t> NatsPublisher::ReadLastPosition() {
  FATHOM_ASSIGN_OR_RETURN(NatsPtr<natsMsg> msg, LastMessage());
  if (msg == nullptr) return uint64_t{0};
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
  const auto& batch = std::get<wire::Batch>(decoded.value());
  FATHOM_ASSIGN_OR_RETURN(std::optional<internal::PartInfo> part, internal::ReadPartInfo(msg.get()));
  if (part && !part->last()) {
    spdlog::warn("collector '{}': the last message on {} is part {} of {} of batch ({}, {}]; that batch was cut "
                 "short and is sent again from position {}",
                 options_.collector, subject_, part->part, part->parts, batch.from_position, batch.to_position,
                 batch.from_position);
    return batch.from_position;
  }
  return batch.to_position;
}

Status NatsPublisher::LoadPosition() {
  while (!position_loaded_) {
    Status s = Connected();
    if (s.ok()) {
      auto last = ReadLastPosition();
      if (last.ok()) {
        committed_ = last.value();
        position_loaded_ = true;
        Answered();
        break;
      }
      s = last.status();
    }
    FATHOM_RETURN_IF_ERROR(Retry(s, "reading the position from NATS"));
  }
  return Status::Ok();
}

Result<uint64_t> NatsPublisher::Publish(const std::string& frame, const std::string& msg_id,
                                        const internal::PartInfo* part, uint64_t from, uint64_t to) {
  bool attempted = false;
  for (;;) {
    Status s = Connected();
    if (s.ok() && attempted) {
      auto stored = StoredAs(msg_id);
      if (stored.ok() && stored.value() != 0) {
        Answered();
        return stored.value();
      }
      s = stored.status();
    }
    if (s.ok()) {
      attempted = true;
      auto msg = internal::BatchMessage(subject_, frame, msg_id, part);
      if (!msg.ok()) return msg.status();
      jsPubOptions po;
      jsPubOptions_Init(&po);
      po.MaxWait = options_.ack_timeout.count();
      jsPubAck* raw_ack = nullptr;
      jsErrCode jerr = static_cast<jsErrCode>(0);
      natsStatus ps = js_PublishMsg(&raw_ack, link_.js(), msg.value().get(), &po, &jerr);
      NatsPtr<jsPubAck> ack(raw_ack);
      if (ps == NATS_OK) {
        Answered();
        return ack->Sequence;
      }
      const std::string which = part == nullptr ? std::string() : fmt::format(" part {} of {}", part->part, part->parts);
      s = NatsFailure(fmt::format("publishing batch ({}, {}]{} ({} bytes) on {} to stream '{}'", from, to, which,
                                  frame.size(), subject_, options_.bus.stream),
                      ps, jerr);
    }
    FATHOM_RETURN_IF_ERROR(Retry(s, "publishing to NATS"));
  }
}

Status NatsPublisher::Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) {
  if (batch.size() > wire::kMaxBatchEvents) {
    return Status::Error(fmt::format("batch of {} events for collector '{}' exceeds the {} a bus batch holds",
                                     batch.size(), options_.collector, wire::kMaxBatchEvents));
  }
  if (batch.empty() && !position) return Status::Ok();
  FATHOM_RETURN_IF_ERROR(LoadPosition());
  if (position && position->position <= committed_) {  // already committed by an earlier run
    for (auto& e : batch) e.id = 0;
    return Status::Ok();
  }
  const uint64_t from = committed_;
  const uint64_t to = position ? position->position : from + batch.size();
  const internal::SplitTarget target{options_.collector, link_.servers_text(), max_payload_, max_frame_};
  FATHOM_ASSIGN_OR_RETURN(std::vector<internal::BatchPart> parts, internal::SplitBatch(target, batch, from, to));
  uint64_t seq = 0;
  if (parts.size() == 1) {
    FATHOM_ASSIGN_OR_RETURN(seq, Publish(parts[0].frame, internal::BatchMessageId(options_.collector, to), nullptr,
                                         from, to));
  } else {
    const uint64_t digest = internal::BatchDigest(parts);
    internal::PartInfo info;
    info.parts = static_cast<uint32_t>(parts.size());
    info.total = static_cast<uint32_t>(batch.size());
    for (size_t k = 0; k < parts.size(); ++k) {
      info.part = static_cast<uint32_t>(k + 1);
      info.first_index = static_cast<uint32_t>(parts[k].first);
      info.prev_seq = seq;
      FATHOM_ASSIGN_OR_RETURN(seq, Publish(parts[k].frame, internal::PartMessageId(options_.collector, to, info, digest),
                                           &info, from, to));
    }
  }
  for (size_t i = 0; i < batch.size(); ++i) batch[i].id = (seq << kIdIndexBits) | i;
  committed_ = to;
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
