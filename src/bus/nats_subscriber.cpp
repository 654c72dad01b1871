// nats_subscriber.cpp — a Subscriber reading the fathom stream through a JetStream pull consumer.
//
// The consumer is (re)created by this class with a start sequence, so delivery always begins
// exactly where the subscriber needs it: after `since`, after a durable name's acknowledged
// messages, or after the stream's last message (live only). A stream sequence that skips
// ahead of the last one seen means messages were removed (limits, purge): Next() then fails
// naming the ids that are gone.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <thread>

#include "bus/bus_names.h"
#include "bus/jetstream_link.h"
#include "bus/nats_bus.h"
#include "bus/path_selection.h"
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

  Status Open();
  Status Next(std::vector<Event>& out, std::chrono::milliseconds timeout) override;
  Status Acknowledge(uint64_t id) override;
  void Stop() override { link_.Close(); }

 private:
  struct Unacked {
    uint64_t seq = 0;
    uint64_t last_delivered_id = 0;  // 0 when none of its events matched
    std::string reply;
  };

  bool durable() const { return !options_.name.empty(); }
  Status CreateConsumer(uint64_t start_seq);
  Status Recover();
  Status Process(natsMsg* msg, std::vector<Event>& out);
  Status StoppedError() const {
    return Status::Error(fmt::format("subscription to NATS stream '{}' was stopped", options_.bus.stream));
  }

  SubscribeOptions options_;
  std::string filter_subject_;
  internal::PathSelection selection_;
  JetStreamLink link_;
  NatsPtr<natsSubscription> sub_;
  std::string consumer_;
  bool consumer_ok_ = false;
  uint64_t last_seq_ = 0;           // highest stream sequence processed (or skipped by the start)
  uint64_t last_id_ = 0;            // every id through this one was delivered or filtered out
  uint64_t last_delivered_id_ = 0;  // the last id handed to the caller
  uint64_t acked_seq_ = 0;          // messages through this sequence are acknowledged (durable)
  std::deque<Unacked> unacked_;     // durable: processed messages not yet acknowledged
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
  return CreateConsumer(start_seq);
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
  auto& events = std::get<wire::Batch>(decoded.value()).events;
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

Status NatsSubscriber::Next(std::vector<Event>& out, std::chrono::milliseconds timeout) {
  if (!deferred_.ok()) return deferred_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const size_t before = out.size();
  for (;;) {
    if (link_.closed()) return StoppedError();
    Status s = consumer_ok_ ? Status::Ok() : Recover();
    if (s.ok()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      internal::MsgList list;
      jsErrCode jerr = static_cast<jsErrCode>(0);
      natsStatus fs = natsSubscription_Fetch(list.get(), sub_.get(), kFetchMessages,
                                             std::max<int64_t>(left.count(), 1), &jerr);
      if (fs == NATS_OK) {
        link_.ResetBackoff();
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
    spdlog::warn("NATS subscription: {}; retrying", s.message());
    if (std::chrono::steady_clock::now() >= deadline) return Status::Ok();
    if (!link_.Backoff(std::chrono::milliseconds(1000))) return StoppedError();
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
  // A cluster that lost its metadata leader creates no consumer until it elected another,
  // which takes seconds on a busy machine: temporary failures are retried for kOpenPatience
  // before the last one is reported.
  constexpr auto kOpenPatience = std::chrono::seconds(60);
  const auto deadline = std::chrono::steady_clock::now() + kOpenPatience;
  for (;;) {
    auto subscriber = std::make_unique<NatsSubscriber>(options, servers);
    Status s = subscriber->Open();
    if (s.ok()) return std::unique_ptr<Subscriber>(std::move(subscriber));
    if (internal::IsPermanent(s) || std::chrono::steady_clock::now() >= deadline) return s;
    spdlog::warn("NATS subscription: {}; retrying", s.message());
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace fathom::bus
