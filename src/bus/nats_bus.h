// nats_bus.h — fathom's client roles on a NATS JetStream bus instead of an aggregator.
//
// Stream: created when absent with the BusOptions (name, subjects "<subject_prefix>.>", file
// storage, replicas, MaxAge, MaxBytes, discard old, a 2-minute duplicate window).
// Publisher: one JetStream message per batch (payload: the wire Batch frame, wire_messages.h)
// on subject "<subject_prefix>.<token>", where the token is the collector name with every
// byte outside [A-Za-z0-9_-] written as %HH ("mdt.0" -> "mdt%2E0"; one-to-one, never '.', '*',
// '>' or white space), with Nats-Msg-Id "<token>:<to_position>" so the stream drops a
// retransmitted batch (a duplicate acknowledgement counts as success). Commit() returns after
// the publish acknowledgement, retrying with backoff (timeouts, no responders, leader
// changes, a server down) until it arrives or Stop(); the position never advances before it.
// Position() is the to_position of the last message on the collector's subject (0 if none).
// Batches of kernel sources (no position) are numbered here: to = from + count; such a batch
// too large for the server's max_payload is split into several messages.
// Subscriber: a pull consumer (durable when SubscribeOptions::name is set, else ephemeral)
// created at the stream sequence where delivery must start: since >> 16 (events at or below
// `since` in that message skipped), else the durable name's acknowledged messages, else the
// end of the stream (live only). Path prefix and kinds are applied here. Acknowledge(id)
// acknowledges (AckAll) the messages wholly at or below id. Ids removed by the stream's
// limits before delivery make Next() fail naming them.
// Event ids on the bus are (stream sequence << 16) | index of the event in its message:
// strictly increasing, not contiguous.
// Thread use as in fathom/client.h.
#pragma once

#include <memory>

#include "fathom/client.h"

namespace fathom::bus {

inline constexpr int kIdIndexBits = 16;

Result<std::unique_ptr<EventSink>> OpenNatsPublisher(const PublisherOptions& options);
Result<std::unique_ptr<Subscriber>> OpenNatsSubscriber(const SubscribeOptions& options);

// True for "nats://..." endpoints.
bool IsNatsEndpoint(std::string_view endpoint);

}  // namespace fathom::bus
