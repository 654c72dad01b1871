#include "client/zmq_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace fathom::client {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kReceiveSlice{100};

std::string Range(uint64_t from, uint64_t to) {
  return "(" + std::to_string(from) + ", " + std::to_string(to) + "]";
}

}  // namespace

Result<std::unique_ptr<EventSink>> ZmqPublisher::Open(const PublisherOptions& options) {
  if (options.collector.empty()) {
    return Status::Error("a collector needs a name (--name): the aggregator keeps positions per name");
  }
  std::unique_ptr<ZmqPublisher> publisher(new ZmqPublisher(options));
  FATHOM_ASSIGN_OR_RETURN(publisher->link_,
                          AggregatorLink::Open({options.endpoint, options.keys, milliseconds(0)}, publisher->stop_));
  return std::unique_ptr<EventSink>(std::move(publisher));
}

void ZmqPublisher::SetHealth(Health health, std::string_view detail) {
  if (health == health_) return;
  switch (health) {
    case Health::kHealthy:
      spdlog::info("aggregator at {} answers again; continuing from position {}", options_.endpoint, committed_);
      break;
    case Health::kUnreachable:
      spdlog::warn("aggregator at {} unreachable ({}); retrying, nothing is skipped", options_.endpoint, detail);
      break;
    case Health::kUnavailable:
      spdlog::warn("aggregator at {} cannot commit now ({}); retrying, nothing is skipped", options_.endpoint,
                   detail);
      break;
  }
  health_ = health;
}

Status ZmqPublisher::Retry(Health health, std::string_view detail, bool reconnect) {
  SetHealth(health, detail);
  FATHOM_RETURN_IF_ERROR(SleepUnlessStopped(backoff_.Next(), stop_));
  if (reconnect) return link_->Reconnect();
  return Status::Ok();
}

Status ZmqPublisher::Refused(const wire::Error& error, uint64_t from, uint64_t to) const {
  return Status::Error("the aggregator at " + options_.endpoint + " refused batch " + Range(from, to) +
                       " of collector '" + options_.collector + "': " + error.message);
}

Result<std::optional<uint64_t>> ZmqPublisher::TryWelcome() {
  FATHOM_ASSIGN_OR_RETURN(bool sent, link_->Send(wire::Hello{options_.collector}, options_.ack_timeout));
  if (!sent) return std::optional<uint64_t>();
  const auto deadline = Clock::now() + options_.ack_timeout;
  while (Clock::now() < deadline) {
    FATHOM_ASSIGN_OR_RETURN(auto message, link_->Receive(kReceiveSlice));
    if (!message) continue;
    if (auto* welcome = std::get_if<wire::Welcome>(&*message)) return std::optional<uint64_t>(welcome->position);
    if (auto* error = std::get_if<wire::Error>(&*message)) {
      if (error->code == wire::ErrorCode::kUnavailable || error->code == wire::ErrorCode::kUnknownSession) {
        return std::optional<uint64_t>();
      }
      return Status::Error("the aggregator at " + options_.endpoint + " refused collector '" +
                           options_.collector + "': " + error->message);
    }
  }
  return std::optional<uint64_t>();
}

Result<uint64_t> ZmqPublisher::Welcome() {
  while (true) {
    FATHOM_ASSIGN_OR_RETURN(auto position, TryWelcome());
    if (position) {
      backoff_.Reset();
      committed_ = *position;
      welcomed_ = true;
      SetHealth(Health::kHealthy, "");
      return *position;
    }
    FATHOM_RETURN_IF_ERROR(Retry(Health::kUnreachable, "no answer to Hello", true));
  }
}

Result<uint64_t> ZmqPublisher::Position(std::string_view /*source*/) {
  if (!welcomed_) return Welcome();
  return committed_;
}

Status ZmqPublisher::Commit(std::vector<Event>& batch, const std::optional<SourcePosition>& position) {
  if (stop_.load()) return StoppedError();
  if (!welcomed_) FATHOM_RETURN_IF_ERROR(Welcome().status());
  const uint64_t from = committed_;
  const uint64_t to = position ? position->position : from + batch.size();
  if (to <= from) {
    if (batch.empty()) return Status::Ok();
    return Status::Error("collector '" + options_.collector + "' sent " + std::to_string(batch.size()) +
                         " events at position " + std::to_string(to) + ", which the aggregator already holds " +
                         "up to " + std::to_string(from) + ": a source's positions must advance");
  }
  return SendUntilAcknowledged(batch, from, to);
}

Status ZmqPublisher::SendUntilAcknowledged(std::vector<Event>& batch, uint64_t from, uint64_t to) {
  const std::string frame = wire::EncodeBatch(options_.collector, from, to, batch);
  bool check_position = false;  // the last attempt may or may not have been committed
  while (true) {
    if (check_position) {
      FATHOM_ASSIGN_OR_RETURN(uint64_t stored, Welcome());
      if (stored == to) return Status::Ok();  // committed before; its acknowledgement was lost
      if (stored != from) {
        return Status::Error("the aggregator at " + options_.endpoint + " holds collector '" + options_.collector +
                             "' at position " + std::to_string(stored) + ", not at the start of batch " +
                             Range(from, to) + ": restart the collector (it resumes from position " +
                             std::to_string(stored) + "), and give each collector its own --name");
      }
      check_position = false;
    }
    FATHOM_ASSIGN_OR_RETURN(bool sent, link_->SendFrame(frame, options_.ack_timeout));
    if (!sent) {
      FATHOM_RETURN_IF_ERROR(Retry(Health::kUnreachable, "no connection", true));
      check_position = true;
      continue;
    }
    const uint64_t handshakes = link_->handshakes();
    const auto deadline = Clock::now() + options_.ack_timeout;
    bool resend = false;
    while (!resend) {
      if (Clock::now() >= deadline) {
        FATHOM_RETURN_IF_ERROR(Retry(Health::kUnreachable,
                                     "no acknowledgement in " + std::to_string(options_.ack_timeout.count()) + " ms",
                                     true));
        check_position = true;
        break;
      }
      FATHOM_ASSIGN_OR_RETURN(auto reply, link_->Receive(kReceiveSlice));
      // A handshake after the one the batch went out on: reconnected, and the batch may have
      // been lost with the old connection (the first handshake may be seen just after sending).
      if (link_->handshakes() > std::max<uint64_t>(handshakes, 1)) {
        check_position = true;
        break;
      }
      if (!reply) continue;
      if (auto* ack = std::get_if<wire::BatchAck>(&*reply)) {
        if (ack->to_position != to) continue;  // a late answer to an earlier attempt
        if (ack->first_id != 0 && ack->last_id - ack->first_id + 1 == batch.size()) {
          for (size_t i = 0; i < batch.size(); ++i) batch[i].id = ack->first_id + i;
        }
        committed_ = to;
        backoff_.Reset();
        SetHealth(Health::kHealthy, "");
        return Status::Ok();
      }
      auto* error = std::get_if<wire::Error>(&*reply);
      if (error == nullptr) continue;
      switch (error->code) {
        case wire::ErrorCode::kUnavailable:
          FATHOM_RETURN_IF_ERROR(Retry(Health::kUnavailable, error->message, false));
          resend = true;
          break;
        case wire::ErrorCode::kUnknownSession:
          check_position = true;
          resend = true;
          break;
        case wire::ErrorCode::kPositionGap:
          return Status::Error("the aggregator at " + options_.endpoint + " holds collector '" + options_.collector +
                               "' up to position " + std::to_string(error->position) + ", but batch " +
                               Range(from, to) + " starts after it: restart the collector; it resumes from position " +
                               std::to_string(error->position));
        default:
          return Refused(*error, from, to);
      }
    }
  }
}

}  // namespace fathom::client
