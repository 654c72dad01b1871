// The subscriber feed: an aggregator's or a bus's events through fathom::Subscriber, from the
// catalog's position; acknowledged once committed, so a durable name's far end keeps them.
#include "catalog/follow/event_feed.h"

namespace fathom::catalog {
namespace {

class SubscriberFeed final : public EventFeed {
 public:
  explicit SubscriberFeed(std::unique_ptr<Subscriber> subscriber)
      : subscriber_(std::move(subscriber)) {}

  Status Next(FeedBatch& out, size_t max, std::chrono::milliseconds timeout) override {
    out.lost_before = false;
    // Events received beyond `max` last time come first.
    out.events.swap(pending_);
    pending_.clear();
    if (out.events.empty()) FATHOM_RETURN_IF_ERROR(subscriber_->Next(out.events, timeout));
    if (out.events.size() > max) {
      pending_.assign(std::make_move_iterator(out.events.begin() + static_cast<long>(max)),
                      std::make_move_iterator(out.events.end()));
      out.events.resize(max);
    }
    if (!out.events.empty()) newest_ = std::max(newest_, out.events.back().id);
    return Status::Ok();
  }

  Status Acknowledge(uint64_t id) override { return subscriber_->Acknowledge(id); }
  uint64_t NewestId() override { return newest_; }
  void Stop() override { subscriber_->Stop(); }

 private:
  std::unique_ptr<Subscriber> subscriber_;
  std::vector<Event> pending_;
  uint64_t newest_ = 0;
};

}  // namespace

Result<std::unique_ptr<EventFeed>> OpenSubscriberFeed(SubscribeOptions options, uint64_t since) {
  options.since = since;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Subscriber> subscriber, Subscriber::Open(options));
  return std::unique_ptr<EventFeed>(new SubscriberFeed(std::move(subscriber)));
}

}  // namespace fathom::catalog
