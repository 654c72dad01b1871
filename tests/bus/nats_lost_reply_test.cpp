// Replies the network loses, on a real nats-server: a TCP proxy (tests/support/tcp_fault_proxy.h)
// between the client and the server forwards a request, then cuts the connection before the
// answer comes back (a real fault of that precision cannot be made otherwise).
#include <gtest/gtest.h>

#include <chrono>

#include "bus/bus_test_util.h"
#include "support/nats_server.h"
#include "support/tcp_fault_proxy.h"

namespace fathom::bus::testing {
namespace {

using fathom::testing::NatsServers;
using fathom::testing::TcpFaultProxy;

// The batch is stored, its acknowledgement is lost, and the network stays down for longer
// than the stream's duplicate window: the publisher's retry finds the batch stored instead of
// storing it a second time.
TEST(NatsLostReply, BatchWhoseAcknowledgementWasLostIsNotStoredTwiceAfterTheDuplicateWindow) {
  NatsServers nats;
  StreamInspector inspect(nats.url(0));
  // The stream exists before the collector runs (the publisher keeps it as it is), with a
  // duplicate window that the outage outlasts.
  const char* subjects[] = {"fathom.events.>"};
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  cfg.Name = "FATHOM";
  cfg.Subjects = subjects;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  cfg.Duplicates = 200'000'000;  // 200 ms
  jsStreamInfo* created = nullptr;
  ASSERT_EQ(js_AddStream(&created, inspect.js(), &cfg, nullptr, nullptr), NATS_OK);
  jsStreamInfo_Destroy(created);

  TcpFaultProxy proxy(static_cast<uint16_t>(nats.port(0)));
  auto sink = OpenPublisherOrDie(PublisherFor(proxy.nats_url(), "mdt0"));
  ASSERT_EQ(sink->Position("mdt0").value(), 0u);
  proxy.Arm("HPUB fathom.events.mdt0 ", std::chrono::milliseconds(1000));
  auto batch = NumberedEvents(0, 100);
  Status s = sink->Commit(batch, SourcePosition{"mdt0", 100});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(proxy.cuts(), 1);
  EXPECT_EQ(inspect.Messages("FATHOM"), 1u) << "the batch was stored twice";
  EXPECT_NE(batch.back().id, 0u);

  auto next = NumberedEvents(100, 50);
  ASSERT_TRUE(sink->Commit(next, SourcePosition{"mdt0", 150}).ok());
  EXPECT_EQ(inspect.Messages("FATHOM"), 2u);
  SubscribeOptions from_start;
  from_start.endpoint = nats.url(0);
  from_start.since = 0;
  auto sub = OpenSubscriberOrDie(from_start);
  ExpectNumbered(ReadExactly(*sub, 150), 0, 150);
}

// A subscriber that starts inside a batch stored in parts reads the earlier parts back; the
// reply to that read is lost with its connection: the subscriber reads it again once
// reconnected rather than failing.
TEST(NatsLostReply, ReadingEarlierPartsBackOutlastsALostReply) {
  NatsServers nats;
  auto sink = OpenPublisherOrDie(PublisherFor(nats.url(0), "mdt0"));
  auto batch = LongEvents(0, 40000);
  ASSERT_TRUE(sink->Commit(batch, SourcePosition{"mdt0", 40000}).ok());

  TcpFaultProxy proxy(static_cast<uint16_t>(nats.port(0)));
  SubscribeOptions inside;
  inside.endpoint = proxy.nats_url();
  inside.since = batch[100].id;  // in the first part: the consumer starts at the last part
  auto sub = OpenSubscriberOrDie(inside);
  proxy.Arm("$JS.API.STREAM.MSG.GET.", std::chrono::milliseconds(300));
  std::vector<Event> got;
  Status s = ReadEvents(*sub, 39899, got, std::chrono::seconds(30));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(proxy.cuts(), 1);
  ExpectNumbered(got, 101, 39899);
}

}  // namespace
}  // namespace fathom::bus::testing
