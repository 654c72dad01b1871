// event_history.cpp — StoreHistory and AggregatorHistory.
#include "web/event_history.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fathom::web {
namespace {

// How long the aggregator may take to answer for its ids (a counters request: it answers at once
// when it runs).
constexpr std::chrono::seconds kCountersWait{2};

class FromStore final : public EventHistory {
 public:
  explicit FromStore(HandlePool<EventStore>& stores) : stores_(stores) {}

  Result<IdRange> Held() override {
    FATHOM_ASSIGN_OR_RETURN(auto store, stores_.Acquire());
    auto first = store->FirstId();
    auto last = store->LastId();
    if (!first.ok() || !last.ok()) {
      store.Drop();
      return !first.ok() ? first.status() : last.status();
    }
    return IdRange{first.value(), last.value()};
  }

  Status Replay(uint64_t since_id, uint64_t through_id, const std::string& prefix,
                const std::function<bool(const Event&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(auto store, stores_.Acquire());
    Status s = store->Replay(ReplayQuery{.since_id = since_id, .path_prefix = prefix, .limit = 0},
                             [&](const Event& e) { return e.id <= through_id && fn(e); });
    if (!s.ok()) store.Drop();
    return s;
  }

 private:
  HandlePool<EventStore>& stores_;
};

class FromAggregator final : public EventHistory {
 public:
  FromAggregator(std::string endpoint, ClientKeys keys, std::chrono::milliseconds patience)
      : endpoint_(std::move(endpoint)), keys_(std::move(keys)), patience_(patience) {}

  Result<IdRange> Held() override {
    FATHOM_ASSIGN_OR_RETURN(
        const nlohmann::json j,
        AggregatorCounters(endpoint_, keys_, std::min<std::chrono::milliseconds>(patience_, kCountersWait)));
    if (!j.contains("last_id")) return Status::Error("the aggregator at " + endpoint_ + " answered counters without ids");
    return IdRange{j.value("first_id", uint64_t{1}), j.value("last_id", uint64_t{0})};
  }

  Status Replay(uint64_t since_id, uint64_t through_id, const std::string& prefix,
                const std::function<bool(const Event&)>& fn) override {
    if (through_id <= since_id) return Status::Ok();
    SubscribeOptions o;
    o.endpoint = endpoint_;
    o.keys = keys_;
    o.since = since_id;
    o.path_prefix = prefix;
    FATHOM_ASSIGN_OR_RETURN(auto sub, Subscriber::Open(o));
    std::vector<Event> batch;
    auto quiet_since = std::chrono::steady_clock::now();
    uint64_t covered = since_id;
    while (covered < through_id) {
      batch.clear();
      FATHOM_RETURN_IF_ERROR(sub->Next(batch, std::chrono::milliseconds(100)));
      for (const Event& e : batch) {
        if (e.id > through_id || !fn(e)) return Status::Ok();
      }
      if (!batch.empty()) FATHOM_RETURN_IF_ERROR(sub->Acknowledge(batch.back().id));  // more credit
      if (sub->covered_through() > covered) {
        covered = sub->covered_through();
        quiet_since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - quiet_since > patience_) {
        return Status::Error("the aggregator at " + endpoint_ + " sent nothing after id " + std::to_string(covered) +
                             " for " + std::to_string(patience_.count() / 1000) +
                             " s: check that it is running and that this server's key may subscribe");
      }
    }
    return Status::Ok();
  }

 private:
  std::string endpoint_;
  ClientKeys keys_;
  std::chrono::milliseconds patience_;
};

}  // namespace

Result<nlohmann::json> AggregatorCounters(const std::string& endpoint, const ClientKeys& keys,
                                          std::chrono::milliseconds timeout) {
  FATHOM_ASSIGN_OR_RETURN(std::string text, RequestAggregatorStats(endpoint, keys, timeout));
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::Error("the aggregator at " + endpoint + " answered counters that are not JSON");
  return j;
}

std::unique_ptr<EventHistory> StoreHistory(HandlePool<EventStore>& stores) {
  return std::make_unique<FromStore>(stores);
}

std::unique_ptr<EventHistory> AggregatorHistory(std::string endpoint, ClientKeys keys,
                                                std::chrono::milliseconds patience) {
  return std::make_unique<FromAggregator>(std::move(endpoint), std::move(keys), patience);
}

}  // namespace fathom::web
