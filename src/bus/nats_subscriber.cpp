// nats_subscriber.cpp — a Subscriber reading the fathom stream through a JetStream pull consumer.
//
// The consumer is (re)created by this class with a start sequence, so delivery always begins
// exactly where the subscriber needs it: after `since`, after a durable name's acknowledged
// messages, or after the stream's last message (live only). A stream sequence that skips
// ahead of the last one seen means messages were removed (limits, purge): Next() then fails
// naming the ids that are gone.
// A batch sent in several parts (batch_parts.h) is delivered when its last part is read: the
// parts before it are kept per subject while they arrive in order, and read back through the
// Fathom-Prev-Seq chain when delivery started between them (since, a durable restart). Parts
// of a batch whose last part never came are dropped when their subject moves on.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <map>

#include "bus/batch_parts.h"
#include "bus/bus_names.h"
#include "bus/jetstream_link.h"
#include "bus/nats_bus.h"
#include "bus/path_selection.h"
#include "bus/retry_log.h"
#include "wire/wire_messages.h"

namespace fathom::bus {
namespace {

using internal::JetStreamLink;
using internal::NatsFailure;
using internal::NatsPtr;

constexpr uint64_t kIndexMask = (uint64_t{1} << kIdIndexBits) - 1;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int kFetchMessages = 64;
constexpr auto kConsumerCheckEvery = std::chrono::seconds(5);
constexpr auto kRequestTimeout = std::chrono::milliseconds(5000);

uint64_t FirstId(uint64_t seq) { return seq << kIdIndexBits; }
uint64_t LastId(uint64_t seq) { return (seq << kIdIndexBits) | kIndexMask; }

class NatsSubscriber final : public Subscriber {
 public:
  NatsSubscriber(const SubscribeOptions& options, std::vector<std::string> servers)
      : options_(options),
        filter_subject_(internal::AllCollectorsSubject(options.bus.subject_prefix)),
        selection_(options.path_prefix, options.recursive, options.kinds),
        link_(std::move(servers), options.name.empty() ? "fathom subscriber" : "fathom subscriber " + options.name,
              kRequestTimeout) {}

  ~NatsSubscriber() override {
    sub_.reset();
    if (options_.name.empty() && !consumer_.empty() && link_.js() != nullptr && !link_.closed()) {
      js_DeleteConsumer(link_.js(), options_.bus.stream.c_str(), consumer_.c_str(), nullptr, nullptr);
    }
  }

  // Connects, finds where delivery starts and creates the consumer; until it succeeds, Next()
  // tries again (within its timeout).
  Status Open();
  Status Next(std::vector<Event>& out, std::chrono::milliseconds timeout) override;
  bool answered() const override { return opened_; }
  uint64_t covered_through() const override { return last_id_; }
  // Logs a temporary failure (at growing intervals, see retry_log.h).
  void LogRetry(const Status& failure);
  // Logs that the bus answers again after failures.
  void LogRecovered();
  Status Acknowledge(uint64_t id) override;
  void Stop() override { link_.Close(); }

 private:
  // The parts read so far of a subject's batch whose last part has not come yet.
  struct Staged {
    uint64_t from = 0;
    uint64_t to = 0;
    internal::PartInfo info;  // of the last part staged
    uint64_t last_seq = 0;    // its stream sequence
    std::vector<Event> events;
  };
  struct Unacked {
    uint64_t seq = 0;
    uint64_t last_delivered_id = 0;  // 0 when none of its events matched
    std::string reply;
  };

  bool durable() const { return !options_.name.empty(); }
  Status CreateConsumer(uint64_t start_seq);
  Status Recover();
  Status Process(natsMsg* msg, std::vector<Event>& out);
  // Stages a part before the last; for the last part, replaces `events` with the whole batch
  // (false: every id of the batch is at or below last_id_, nothing to deliver).
  Result<bool> Assemble(uint64_t seq, const std::string& subject, const wire::Batch& batch,
                        const internal::PartInfo& info, std::vector<Event>& events);
  // Reads parts 1..info.part-1 of the batch whose part `info` is at `seq` from the stream.
  Result<std::vector<Event>> ReadEarlierParts(uint64_t seq, const wire::Batch& batch, const internal::PartInfo& info);
  // Message `seq` of the stream (null when the stream no longer holds it), waiting out
  // temporary failures (a lost connection, a leader election) with backoff until it comes,
  // Stop(), or a permanent failure; `what` names it in errors.
  Result<NatsPtr<natsMsg>> GetStoredMessage(uint64_t seq, const std::string& what);
  Status StoppedError() const {
    return Status::Error(fmt::format("subscription to NATS stream '{}' was stopped", options_.bus.stream));
  }

  SubscribeOptions options_;
  std::string filter_subject_;
  internal::PathSelection selection_;
  JetStreamLink link_;
  NatsPtr<natsSubscription> sub_;
  std::string consumer_;
  bool opened_ = false;
  bool consumer_ok_ = false;
  internal::RetryLog retry_log_;
  uint64_t last_seq_ = 0;           // highest stream sequence processed (or skipped by the start)
  uint64_t last_id_ = 0;            // every id through this one was delivered or filtered out
  uint64_t last_delivered_id_ = 0;  // the last id handed to the caller
  uint64_t acked_seq_ = 0;          // messages through this sequence are acknowledged (durable)
  std::deque<Unacked> unacked_;     // durable: processed messages not yet acknowledged
  std::map<std::string, Staged> staged_;  // by subject
  Status deferred_;                 // a failure met after events were already handed out
  std::chrono::steady_clock::time_point last_check_ = std::chrono::steady_clock::now();
};

Status NatsSubscriber::Open() {
  FATHOM_RETURN_IF_ERROR(link_.Connect());
  FATHOM_RETURN_IF_ERROR(link_.EnsureStream(options_.bus));
  jsStreamInfo* raw_info = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&raw_info, link_.js(), options_.bus.stream.c_str(), nullptr, &jerr);
  NatsPtr<jsStreamInfo> info(raw_info);
  if (s != NATS_OK) return NatsFailure(fmt::format("stream '{}' on {}", options_.bus.stream, link_.servers_text()), s, jerr);

  uint64_t start_seq = 0;
  if (options_.since) {
    last_id_ = *options_.since;
    last_seq_ = *options_.since >> kIdIndexBits;
    start_seq = std::max<uint64_t>(last_seq_, 1);
  } else if (durable()) {
    jsConsumerInfo* raw_ci = nullptr;
    jerr = static_cast<jsErrCode>(0);
    s = js_GetConsumerInfo(&raw_ci, link_.js(), options_.bus.stream.c_str(), options_.name.c_str(), nullptr, &jerr);
    NatsPtr<jsConsumerInfo> ci(raw_ci);
    if (s == NATS_OK) {
      last_seq_ = ci->AckFloor.Stream;
    } else if (jerr != JSConsumerNotFoundErr) {
      return NatsFailure(fmt::format("durable consumer '{}' of stream '{}'", options_.name, options_.bus.stream), s, jerr);
    }
    last_id_ = last_seq_ == 0 ? 0 : LastId(last_seq_);
    start_seq = last_seq_ + 1;
  } else {
    last_seq_ = info->State.LastSeq;
    last_id_ = LastId(last_seq_);
    start_seq = last_seq_ + 1;
  }
  acked_seq_ = start_seq - 1;
  last_delivered_id_ = last_id_;
  FATHOM_RETURN_IF_ERROR(CreateConsumer(start_seq));
  opened_ = true;
  return Status::Ok();
}

void NatsSubscriber::LogRetry(const Status& failure) {
  if (!retry_log_.Failed()) return;
  spdlog::warn("NATS subscription: {}; retrying ({} attempt{} failed so far)", failure.message(),
               retry_log_.failures(), retry_log_.failures() == 1 ? "" : "s");
}

void NatsSubscriber::LogRecovered() {
  link_.ResetBackoff();
  const uint64_t failed = retry_log_.Succeeded();
  if (failed > 0) spdlog::info("NATS subscription to {} works again after {} failed attempts", link_.servers_text(), failed);
}

Status NatsSubscriber::CreateConsumer(uint64_t start_seq) {
  sub_.reset();
  consumer_ok_ = false;
  if (durable()) {
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_DeleteConsumer(link_.js(), options_.bus.stream.c_str(), options_.name.c_str(), nullptr, &jerr);
    if (s != NATS_OK && jerr != JSConsumerNotFoundErr) {
      return NatsFailure(fmt::format("replacing durable consumer '{}' of stream '{}'", options_.name,
                                     options_.bus.stream), s, jerr);
    }
  }
  jsConsumerConfig cfg;
  jsConsumerConfig_Init(&cfg);
  if (durable()) cfg.Durable = options_.name.c_str();
  cfg.DeliverPolicy = js_DeliverByStartSequence;
  cfg.OptStartSeq = start_seq;
  cfg.AckPolicy = durable() ? js_AckAll : js_AckNone;
  cfg.AckWait = 30 * 60 * 1000 * kNsPerMs;
  cfg.MaxAckPending = -1;
  cfg.FilterSubject = filter_subject_.c_str();
  if (!durable()) cfg.InactiveThreshold = 60 * 1000 * kNsPerMs;
  jsConsumerInfo* raw_ci = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_AddConsumer(&raw_ci, link_.js(), options_.bus.stream.c_str(), &cfg, nullptr, &jerr);
  NatsPtr<jsConsumerInfo> ci(raw_ci);
  if (s != NATS_OK) {
    return NatsFailure(fmt::format("creating consumer '{}' of stream '{}' from sequence {}", options_.name,
                                   options_.bus.stream, start_seq), s, jerr);
  }
  consumer_ = ci->Name;
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = options_.bus.stream.c_str();
  so.Consumer = consumer_.c_str();
  natsSubscription* raw_sub = nullptr;
  jerr = static_cast<jsErrCode>(0);
  s = js_PullSubscribe(&raw_sub, link_.js(), filter_subject_.c_str(), durable() ? consumer_.c_str() : nullptr,
                       nullptr, &so, &jerr);
  if (s != NATS_OK) {
    return NatsFailure(fmt::format("binding to consumer '{}' of stream '{}'", consumer_, options_.bus.stream), s, jerr);
  }
  sub_.reset(raw_sub);
  unacked_.clear();
  consumer_ok_ = true;
  return Status::Ok();
}

// The consumer was lost (its server died, it expired) or the connection failed: start a new
// one after what is acknowledged (durable) or delivered (otherwise).
Status NatsSubscriber::Recover() {
  FATHOM_RETURN_IF_ERROR(link_.Connect());
  return CreateConsumer(durable() ? acked_seq_ + 1 : last_seq_ + 1);
}

Status NatsSubscriber::Process(natsMsg* msg, std::vector<Event>& out) {
  jsMsgMetaData* raw_meta = nullptr;
  natsStatus s = natsMsg_GetMetaData(&raw_meta, msg);
  NatsPtr<jsMsgMetaData> meta(raw_meta);
  if (s != NATS_OK) return NatsFailure(fmt::format("metadata of a message from stream '{}'", options_.bus.stream), s);
  const uint64_t seq = meta->Sequence.Stream;
  if (seq > last_seq_ + 1) {
    return Status::Error(
        fmt::format("ids {}-{} are gone from NATS stream '{}' (messages {}-{} were removed by its limits or a "
                    "purge before they could be delivered); subscribe with --since {} to continue from the oldest "
                    "message held",
                    FirstId(last_seq_ + 1), LastId(seq - 1), options_.bus.stream, last_seq_ + 1, seq - 1,
                    FirstId(seq) - 1),
        std::make_error_code(std::errc::no_message_available));
  }
  std::string_view frame(natsMsg_GetData(msg), static_cast<size_t>(natsMsg_GetDataLength(msg)));
  auto decoded = wire::Decode(frame);
  if (!decoded.ok() || !std::holds_alternative<wire::Batch>(decoded.value())) {
    return Status::Error(fmt::format("message {} of NATS stream '{}' (subject {}) is not a fathom batch{}{}", seq,
                                     options_.bus.stream, natsMsg_GetSubject(msg), decoded.ok() ? "" : ": ",
                                     decoded.ok() ? "" : decoded.status().message()));
  }
  auto& batch = std::get<wire::Batch>(decoded.value());
  auto& events = batch.events;
  FATHOM_ASSIGN_OR_RETURN(std::optional<internal::PartInfo> part, internal::ReadPartInfo(msg));
  const std::string subject = natsMsg_GetSubject(msg);
  bool deliver = true;
  if (part) {
    FATHOM_ASSIGN_OR_RETURN(deliver, Assemble(seq, subject, batch, *part, events));
  } else {
    staged_.erase(subject);  // a whole batch: parts staged before it were cut short
  }
  if (!deliver) events.clear();
  uint64_t delivered = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const uint64_t id = FirstId(seq) | i;
    if (id <= last_id_ || !selection_.Matches(events[i])) continue;
    events[i].id = id;
    out.push_back(std::move(events[i]));
    delivered = id;
  }
  last_id_ = std::max(last_id_, LastId(seq));
  last_seq_ = std::max(last_seq_, seq);
  if (delivered != 0) last_delivered_id_ = delivered;
  if (durable() && seq > acked_seq_ && (unacked_.empty() || seq > unacked_.back().seq)) {
    const char* reply = natsMsg_GetReply(msg);
    unacked_.push_back({seq, delivered, reply != nullptr ? reply : ""});
  }
  return Status::Ok();
}

Result<bool> NatsSubscriber::Assemble(uint64_t seq, const std::string& subject, const wire::Batch& batch,
                                      const internal::PartInfo& info, std::vector<Event>& events) {
  if (info.first_index + events.size() > info.total || (info.last() && info.first_index + events.size() != info.total)) {
    return Status::Error(fmt::format("message {} of NATS stream '{}' (subject {}): part {} of {} holds events {}-{} of "
                                     "a batch of {}",
                                     seq, options_.bus.stream, subject, info.part, info.parts, info.first_index,
                                     info.first_index + events.size(), info.total));
  }
  auto it = staged_.find(subject);
  const bool continues = it != staged_.end() && it->second.from == batch.from_position &&
                         it->second.to == batch.to_position && it->second.info.parts == info.parts &&
                         it->second.info.total == info.total && it->second.info.part + 1 == info.part &&
                         it->second.last_seq == info.prev_seq && it->second.events.size() == info.first_index;
  if (!info.last()) {
    if (info.part == 1 || continues) {
      Staged& st = staged_[subject];
      if (info.part == 1) st = Staged{batch.from_position, batch.to_position, info, seq, {}};
      st.info = info;
      st.last_seq = seq;
      for (auto& e : events) st.events.push_back(std::move(e));
    } else {
      staged_.erase(subject);  // read back through the chain when the last part comes
    }
    return false;
  }
  // The last part: the batch's ids are (seq << 16) | index.
  if ((FirstId(seq) | (info.total == 0 ? 0 : info.total - 1)) <= last_id_) {
    staged_.erase(subject);
    return false;
  }
  std::vector<Event> whole;
  if (continues) {
    whole = std::move(it->second.events);
  } else {
    FATHOM_ASSIGN_OR_RETURN(whole, ReadEarlierParts(seq, batch, info));
  }
  staged_.erase(subject);
  whole.reserve(info.total);
  for (auto& e : events) whole.push_back(std::move(e));
  events = std::move(whole);
  return true;
}

Result<NatsPtr<natsMsg>> NatsSubscriber::GetStoredMessage(uint64_t seq, const std::string& what) {
  for (;;) {
    if (link_.closed()) return StoppedError();
    Status s = link_.Connect();
    if (s.ok()) {
      natsMsg* raw = nullptr;
      jsErrCode jerr = static_cast<jsErrCode>(0);
      natsStatus gs = js_GetMsg(&raw, link_.js(), options_.bus.stream.c_str(), seq, nullptr, &jerr);
      NatsPtr<natsMsg> msg(raw);
      if (gs == NATS_OK) {
        LogRecovered();
        return msg;
      }
      if (jerr == JSNoMessageFoundErr) return NatsPtr<natsMsg>();
      s = NatsFailure(what, gs, jerr);
    }
    if (internal::IsPermanent(s)) return s;
    LogRetry(s);
    if (!link_.Backoff(std::chrono::milliseconds(1000))) return StoppedError();
  }
}

Result<std::vector<Event>> NatsSubscriber::ReadEarlierParts(uint64_t seq, const wire::Batch& batch,
                                                            const internal::PartInfo& info) {
  std::vector<std::vector<Event>> slices(info.part - 1);
  internal::PartInfo at = info;
  uint64_t at_seq = seq;
  for (uint32_t k = info.part - 1; k >= 1; --k) {
    const uint64_t prev = at.prev_seq;
    auto failed = [&](std::string_view why) {
      return Status::Error(fmt::format("message {} of NATS stream '{}' (part {} of {} of the batch ({}, {}] ending at "
                                       "message {}): {}",
                                       prev, options_.bus.stream, k, info.parts, batch.from_position, batch.to_position,
                                       seq, why));
    };
    if (prev == 0 || prev >= at_seq) return failed("the part chain is broken");
    FATHOM_ASSIGN_OR_RETURN(
        NatsPtr<natsMsg> msg,
        GetStoredMessage(prev, fmt::format("reading part {} of {} (message {}) of stream '{}'", k, info.parts, prev,
                                           options_.bus.stream)));
    if (msg == nullptr) {
      return Status::Error(
          fmt::format("ids {}-{} are gone from NATS stream '{}' (message {}, part {} of {} of their batch, was "
                      "removed by its limits or a purge before it could be delivered); subscribe with --since {} "
                      "to continue after them",
                      FirstId(seq), FirstId(seq) | (info.total - 1), options_.bus.stream, prev, k, info.parts,
                      LastId(seq)),
          std::make_error_code(std::errc::no_message_available));
    }
    auto part = internal::ReadPartInfo(msg.get());
    if (!part.ok()) return part.status();
    auto decoded = wire::Decode(
        std::string_view(natsMsg_GetData(msg.get()), static_cast<size_t>(natsMsg_GetDataLength(msg.get()))));
    if (!part.value() || !decoded.ok() || !std::holds_alternative<wire::Batch>(decoded.value())) {
      return failed("not a part of a fathom batch");
    }
    auto& earlier = std::get<wire::Batch>(decoded.value());
    const internal::PartInfo& pi = *part.value();
    if (pi.part != k || pi.parts != info.parts || pi.total != info.total ||
        earlier.from_position != batch.from_position || earlier.to_position != batch.to_position ||
        pi.first_index + earlier.events.size() != at.first_index) {
      return failed("it does not continue into the next part");
    }
    slices[k - 1] = std::move(earlier.events);
    at = pi;
    at_seq = prev;
  }
  std::vector<Event> events;
  for (auto& slice : slices) {
    for (auto& e : slice) events.push_back(std::move(e));
  }
  return events;
}

Status NatsSubscriber::Next(std::vector<Event>& out, std::chrono::milliseconds timeout) {
  if (!deferred_.ok()) return deferred_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const size_t before = out.size();
  for (;;) {
    if (link_.closed()) return StoppedError();
    Status s = !opened_ ? Open() : consumer_ok_ ? Status::Ok() : Recover();
    if (s.ok()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      internal::MsgList list;
      jsErrCode jerr = static_cast<jsErrCode>(0);
      natsStatus fs = natsSubscription_Fetch(list.get(), sub_.get(), kFetchMessages,
                                             std::max<int64_t>(left.count(), 1), &jerr);
      if (fs == NATS_OK) {
        LogRecovered();
        for (int i = 0; i < list.size(); ++i) {
          Status p = Process(list[i], out);
          if (!p.ok()) {
            if (out.size() == before) return p;
            deferred_ = p;
            return Status::Ok();
          }
        }
        if (out.size() > before) return Status::Ok();
        continue;  // only events outside the selection: keep reading until the deadline
      }
      if (fs == NATS_TIMEOUT) {
        LogRecovered();
        if (std::chrono::steady_clock::now() - last_check_ < kConsumerCheckEvery) return Status::Ok();
        // Idle for a while: make sure the consumer still exists (its server may have died).
        last_check_ = std::chrono::steady_clock::now();
        jsConsumerInfo* raw_ci = nullptr;
        jerr = static_cast<jsErrCode>(0);
        natsStatus cs = js_GetConsumerInfo(&raw_ci, link_.js(), options_.bus.stream.c_str(), consumer_.c_str(),
                                           nullptr, &jerr);
        NatsPtr<jsConsumerInfo> ci(raw_ci);
        if (cs == NATS_OK) return Status::Ok();
        s = NatsFailure(fmt::format("consumer '{}' of stream '{}'", consumer_, options_.bus.stream), cs, jerr);
      } else {
        s = NatsFailure(fmt::format("fetching from consumer '{}' of stream '{}'", consumer_, options_.bus.stream),
                        fs, jerr);
      }
      consumer_ok_ = false;
    }
    if (link_.closed()) return StoppedError();
    if (internal::IsPermanent(s)) return s;
    LogRetry(s);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Status::Ok();
    if (!link_.Backoff(std::min(left, std::chrono::milliseconds(1000)))) return StoppedError();
  }
}

Status NatsSubscriber::Acknowledge(uint64_t id) {
  if (!durable()) return Status::Ok();
  // Every processed message is wholly acknowledged once the caller has acknowledged the last
  // event handed out; otherwise only those whose delivered events all lie at or below `id`.
  const bool everything = id >= last_delivered_id_;
  const Unacked* last = nullptr;
  size_t done = 0;
  for (const auto& m : unacked_) {
    if (!everything && (m.seq > (id >> kIdIndexBits) || m.last_delivered_id > id)) break;
    last = &m;
    ++done;
  }
  if (last == nullptr) return Status::Ok();
  natsMsg* raw_reply = nullptr;
  natsStatus s = natsConnection_Request(&raw_reply, link_.connection(), last->reply.c_str(), "+ACK", 4,
                                        kRequestTimeout.count());
  NatsPtr<natsMsg> reply(raw_reply);
  if (s != NATS_OK) {
    return NatsFailure(fmt::format("acknowledging through id {} (message {}) to consumer '{}' of stream '{}'", id,
                                   last->seq, consumer_, options_.bus.stream), s);
  }
  acked_seq_ = last->seq;
  unacked_.erase(unacked_.begin(), unacked_.begin() + static_cast<std::ptrdiff_t>(done));
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Subscriber>> OpenNatsSubscriber(const SubscribeOptions& options) {
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> servers, internal::ParseServers(options.endpoint));
  if (options.name.find_first_of(".*> \t") != std::string::npos) {
    return Status::Error(fmt::format("durable name '{}' may not hold '.', '*', '>' or white space on a NATS bus",
                                     options.name));
  }
  // One attempt here: a bus that is down (or a cluster electing its metadata leader, which
  // creates no consumer meanwhile) is tried again by Next() within the caller's timeouts.
  auto subscriber = std::make_unique<NatsSubscriber>(options, std::move(servers));
  Status s = subscriber->Open();
  if (!s.ok()) {
    if (internal::IsPermanent(s)) return s;
    subscriber->LogRetry(s);
  }
  return std::unique_ptr<Subscriber>(std::move(subscriber));
}

}  // namespace fathom::bus
