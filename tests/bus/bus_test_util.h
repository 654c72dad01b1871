// bus_test_util.h — events, publishers, subscribers and stream inspection for the NATS bus tests.
#pragma once

#include <gtest/gtest.h>
#include <nats/nats.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bus/nats_bus.h"
#include "fathom/client.h"

namespace fathom::bus::testing {

// Event number i: path "/data/d<i % 10>/f<i>", CREATE for even i, MODIFY for odd.
inline Event NumberedEvent(uint64_t i) {
  Event e;
  e.ts_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(i);
  e.mask = (i % 2 == 0) ? kind::kCreate : kind::kModify;
  e.root = "/data";
  e.path = "/data/d" + std::to_string(i % 10) + "/f" + std::to_string(i);
  e.source = "test";
  return e;
}

// make(first), make(first + 1), ... make(first + count - 1).
inline std::vector<Event> MakeEvents(uint64_t first, uint64_t count, Event (*make)(uint64_t)) {
  std::vector<Event> events;
  events.reserve(count);
  for (uint64_t i = first; i < first + count; ++i) events.push_back(make(i));
  return events;
}

inline std::vector<Event> NumberedEvents(uint64_t first, uint64_t count) {
  return MakeEvents(first, count, NumberedEvent);
}

// The number i of an event made by NumberedEvent.
inline uint64_t EventNumber(const Event& e) { return std::stoull(e.path.substr(e.path.rfind("/f") + 2)); }

// Event i with a long path that shares little with its neighbours (about 90 bytes encoded):
// 40,000 of them exceed nats-server's default max_payload (1 MB).
inline Event LongEvent(uint64_t i) {
  Event e = NumberedEvent(i);
  e.path = "/data/" + std::to_string(i) + "-" + std::string(60, static_cast<char>('a' + i % 26)) + "/f" +
           std::to_string(i);
  return e;
}

inline std::vector<Event> LongEvents(uint64_t first, uint64_t count) { return MakeEvents(first, count, LongEvent); }

// Events numbered first, first + 1, ... exactly once each, in id order.
inline void ExpectNumbered(const std::vector<Event>& got, uint64_t first, uint64_t count) {
  ASSERT_EQ(got.size(), count);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(EventNumber(got[i]), first + i) << "at " << i;
    if (i > 0) {
      ASSERT_LT(got[i - 1].id, got[i].id) << "at " << i;
    }
  }
}

inline PublisherOptions PublisherFor(const std::string& endpoint, const std::string& collector,
                                     const BusOptions& bus = {}) {
  PublisherOptions options;
  options.endpoint = endpoint;
  options.collector = collector;
  options.ack_timeout = std::chrono::milliseconds(2000);
  options.max_backoff = std::chrono::milliseconds(500);
  options.bus = bus;
  return options;
}

inline std::unique_ptr<EventSink> OpenPublisherOrDie(const PublisherOptions& options) {
  auto sink = OpenNatsPublisher(options);
  EXPECT_TRUE(sink.ok()) << sink.status().message();
  return sink.ok() ? std::move(sink.value()) : nullptr;
}

inline std::unique_ptr<Subscriber> OpenSubscriberOrDie(const SubscribeOptions& options) {
  auto sub = OpenNatsSubscriber(options);
  EXPECT_TRUE(sub.ok()) << sub.status().message();
  return sub.ok() ? std::move(sub.value()) : nullptr;
}

// Reads until `count` events arrived, a failure, or `limit` passed.
inline Status ReadEvents(Subscriber& sub, size_t count, std::vector<Event>& out,
                         std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
    FATHOM_RETURN_IF_ERROR(sub.Next(out, std::chrono::milliseconds(500)));
  }
  return Status::Ok();
}

// Reads `count` events, then makes sure nothing more comes.
inline std::vector<Event> ReadExactly(Subscriber& sub, size_t count) {
  std::vector<Event> got;
  Status s = ReadEvents(sub, count, got, std::chrono::seconds(30));
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<Event> more;
  s = sub.Next(more, std::chrono::milliseconds(500));
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(more.empty()) << more.size() << " events more than expected, the first numbered "
                            << (more.empty() ? 0 : EventNumber(more.front()));
  return got;
}

// A plain libnats connection for inspecting the stream.
class StreamInspector {
 public:
  explicit StreamInspector(const std::string& url) {
    if (natsConnection_ConnectTo(&nc_, url.c_str()) == NATS_OK) natsConnection_JetStream(&js_, nc_, nullptr);
  }
  ~StreamInspector() {
    if (js_ != nullptr) jsCtx_Destroy(js_);
    if (nc_ != nullptr) natsConnection_Destroy(nc_);
  }
  StreamInspector(const StreamInspector&) = delete;
  StreamInspector& operator=(const StreamInspector&) = delete;

  // Stream info (caller destroys with jsStreamInfo_Destroy), or nullptr when none came within
  // 10 s (the connection may be moving to another node of a cluster).
  jsStreamInfo* Info(const std::string& stream) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (js_ != nullptr && std::chrono::steady_clock::now() < deadline) {
      jsStreamInfo* si = nullptr;
      if (js_GetStreamInfo(&si, js_, stream.c_str(), nullptr, nullptr) == NATS_OK) return si;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return nullptr;
  }
  uint64_t Messages(const std::string& stream) {
    jsStreamInfo* si = Info(stream);
    const uint64_t n = si != nullptr ? si->State.Msgs : 0;
    jsStreamInfo_Destroy(si);
    return n;
  }
  std::string Leader(const std::string& stream) {
    jsStreamInfo* si = Info(stream);
    std::string leader = (si != nullptr && si->Cluster != nullptr && si->Cluster->Leader != nullptr)
                             ? si->Cluster->Leader : "";
    jsStreamInfo_Destroy(si);
    return leader;
  }
  jsCtx* js() { return js_; }

 private:
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
};

}  // namespace fathom::bus::testing
