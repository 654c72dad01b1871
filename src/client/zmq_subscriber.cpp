#include "client/zmq_subscriber.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace fathom::client {
namespace {

using std::chrono::milliseconds;

constexpr auto kSilence = std::chrono::seconds(3);
constexpr milliseconds kReceiveSlice{100};
constexpr milliseconds kAckInterval{100};
constexpr milliseconds kLastAckLinger{500};
constexpr size_t kMaxNextEvents = 65536;

}  // namespace

Result<std::unique_ptr<Subscriber>> ZmqSubscriber::Open(const SubscribeOptions& options) {
  if (options.credit == 0) return Status::Error("a subscription needs a credit of at least 1 event");
  std::unique_ptr<ZmqSubscriber> subscriber(new ZmqSubscriber(options));
  if (options.since) {
    subscriber->has_position_ = true;
    subscriber->last_id_ = *options.since;
    subscriber->delivered_ = *options.since;
  }
  FATHOM_ASSIGN_OR_RETURN(subscriber->link_,
                          AggregatorLink::Open({options.endpoint, options.keys, kLastAckLinger}, subscriber->stop_));
  return std::unique_ptr<Subscriber>(std::move(subscriber));
}

ZmqSubscriber::~ZmqSubscriber() {
  // Best effort: the aggregator keeps a durable name's progress from the last Ack it gets.
  if (link_) (void)FlushAck(true);
}

void ZmqSubscriber::Resubscribe(const char* reason) {
  spdlog::info("subscribing again to {} after id {} ({})", options_.endpoint, last_id_, reason);
  subscribed_ = false;
  subscribe_pending_ = true;
  wanted_since_ = Clock::now();
}

Status ZmqSubscriber::TrySendSubscribe() {
  wire::Subscribe subscribe{options_.name, has_position_, last_id_, options_.path_prefix,
                            options_.recursive, options_.kinds, options_.credit};
  FATHOM_ASSIGN_OR_RETURN(bool sent, link_->Send(subscribe, milliseconds(0)));
  if (sent) {
    subscribe_pending_ = false;
    sent_at_ = Clock::now();
  }
  return Status::Ok();
}

void ZmqSubscriber::CheckSilence() {
  const auto now = Clock::now();
  if (subscribed_) {
    if (now - last_message_ > kSilence) Resubscribe("no message for 3 s");
    return;
  }
  if (now - wanted_since_ > kSilence && !unreachable_logged_) {
    spdlog::warn("aggregator at {} unreachable; retrying, delivery continues after id {}", options_.endpoint,
                 last_id_);
    unreachable_logged_ = true;
  }
  if (!subscribe_pending_ && now - sent_at_ > kSilence) subscribe_pending_ = true;  // unanswered: again
}

Status ZmqSubscriber::FlushAck(bool force) {
  if (!subscribed_ || acked_ <= ack_sent_) return Status::Ok();
  const auto now = Clock::now();
  if (!force && unacked_events_ < options_.credit / 4 && now - ack_sent_at_ < kAckInterval) return Status::Ok();
  FATHOM_ASSIGN_OR_RETURN(bool sent, link_->Send(wire::Ack{acked_, options_.credit}, milliseconds(0)));
  if (sent) {
    ack_sent_ = acked_;
    unacked_events_ = 0;
    ack_sent_at_ = now;
  }
  return Status::Ok();
}

Status ZmqSubscriber::Handle(wire::Message& message, std::vector<Event>& out) {
  if (auto* subscribed = std::get_if<wire::Subscribed>(&message)) {
    if (subscribed_) return Status::Ok();  // answers an earlier Subscribe; ranges will not match
    subscribed_ = true;
    answered_ = true;
    subscribe_pending_ = false;
    has_position_ = true;
    last_id_ = subscribed->start_after;
    last_message_ = Clock::now();
    backoff_.Reset();
    if (unreachable_logged_) {
      spdlog::info("subscribed again to {}; continuing after id {}", options_.endpoint, last_id_);
      unreachable_logged_ = false;
    }
    return Status::Ok();
  }
  if (auto* events = std::get_if<wire::Events>(&message)) {
    if (!subscribed_) return Status::Ok();
    last_message_ = Clock::now();
    if (events->after_id != last_id_) {
      Resubscribe("ids skipped");
      return Status::Ok();
    }
    const size_t before = out.size();
    for (auto& e : events->events) {
      if (e.id <= delivered_) continue;
      delivered_ = e.id;
      out.push_back(std::move(e));
    }
    last_id_ = std::max(last_id_, events->through_id);
    unacked_events_ += out.size() - before;
    return Status::Ok();
  }
  if (auto* heartbeat = std::get_if<wire::Heartbeat>(&message)) {
    if (!subscribed_) return Status::Ok();
    last_message_ = Clock::now();
    if (heartbeat->through_id > last_id_) Resubscribe("a message was lost");
    return Status::Ok();
  }
  auto* error = std::get_if<wire::Error>(&message);
  if (error == nullptr) return Status::Ok();
  switch (error->code) {
    case wire::ErrorCode::kUnknownSession:
      if (subscribed_) Resubscribe("the aggregator restarted");
      return Status::Ok();
    case wire::ErrorCode::kUnavailable:
      spdlog::warn("aggregator at {} cannot serve the subscription now ({}); retrying", options_.endpoint,
                   error->message);
      FATHOM_RETURN_IF_ERROR(SleepUnlessStopped(backoff_.Next(), stop_));
      Resubscribe("retrying");
      return Status::Ok();
    case wire::ErrorCode::kPurged:
      return Status::Error("the aggregator at " + options_.endpoint + " cannot deliver after id " +
                           std::to_string(last_id_) + ": " + error->message);
    default:
      return Status::Error("the aggregator at " + options_.endpoint + " refused the subscription: " + error->message);
  }
}

Status ZmqSubscriber::Next(std::vector<Event>& out, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  const size_t before = out.size();
  while (true) {
    if (stop_.load()) return StoppedError();
    FATHOM_RETURN_IF_ERROR(FlushAck(false));
    if (subscribe_pending_) FATHOM_RETURN_IF_ERROR(TrySendSubscribe());
    CheckSilence();
    const auto now = Clock::now();
    if (now >= deadline) return Status::Ok();
    // Once events came, only what is already waiting is taken along (up to kMaxNextEvents).
    const bool draining = out.size() > before;
    const auto wait = draining ? milliseconds(0)
                               : std::min(kReceiveSlice, std::chrono::duration_cast<milliseconds>(deadline - now) +
                                                             milliseconds(1));
    FATHOM_ASSIGN_OR_RETURN(auto message, link_->Receive(wait));
    const uint64_t handshakes = link_->handshakes();
    // A handshake after the first: the connection was lost and made again, and a restarted
    // aggregator knows nothing of this subscription.
    if (handshakes > std::max<uint64_t>(handshakes_seen_, 1)) Resubscribe("reconnected");
    handshakes_seen_ = handshakes;
    if (!message) {
      if (draining) return Status::Ok();
      continue;
    }
    FATHOM_RETURN_IF_ERROR(Handle(*message, out));
    if (out.size() - before >= kMaxNextEvents) return Status::Ok();
  }
}

Status ZmqSubscriber::Acknowledge(uint64_t id) {
  acked_ = std::max(acked_, id);
  return FlushAck(false);
}

}  // namespace fathom::client
